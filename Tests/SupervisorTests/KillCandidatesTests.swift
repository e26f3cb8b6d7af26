import ControlProtocol
import ExtensiondPolicy
import Testing
@testable import Supervisor

@Suite struct KillCandidatesTests {
    @Test func bandsFollowKindAndState() {
        #expect(KillCandidates.band(kind: .host, state: .running) == .host)
        #expect(KillCandidates.band(kind: .app, state: .running) == .backgroundApp)
        #expect(KillCandidates.band(kind: .extension, state: .idle) == .idleExtension)
        // Serving, or still starting: both count as active.
        #expect(KillCandidates.band(kind: .extension, state: .running) == .activeExtension)
        #expect(KillCandidates.band(kind: .extension, state: .starting) == .activeExtension)
    }

    @Test func reasonsFollowTheLevel() {
        #expect(PressureKillReason.at(.low) == "pressure")
        #expect(PressureKillReason.at(.critical) == "critical")
        #expect(PressureKillReason.isPressureKill("critical"))
        #expect(!PressureKillReason.isPressureKill("manual"))
        #expect(!PressureKillReason.isPressureKill(nil))
    }
}

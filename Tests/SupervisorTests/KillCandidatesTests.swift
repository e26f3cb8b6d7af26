import ControlProtocol
import ExtensiondPolicy
import Testing

@testable import Pressure

@Suite struct KillCandidatesTests {
    @Test func bandsFollowKindAndState() {
        #expect(KillCandidates.band(kind: .host, state: .running) == .host)
        #expect(KillCandidates.band(kind: .app, state: .running) == .backgroundApp)
        #expect(KillCandidates.band(kind: .extension, state: .idle) == .idleExtension)
        // Serving, or still starting: both count as active.
        #expect(KillCandidates.band(kind: .extension, state: .running) == .activeExtension)
        #expect(KillCandidates.band(kind: .extension, state: .starting) == .activeExtension)
    }
}

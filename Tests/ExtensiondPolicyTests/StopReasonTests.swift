import ExtensiondPolicy
import Testing

/// The reasons render to the text that events, `stats`, the metrics and hosts' `extensionTerminated`
/// have always carried: changing one is a protocol change.
@Suite struct StopReasonTests {
    @Test func eachReasonRendersAsItsWireText() {
        let texts = StopReason.allCases.map(\.description)
        #expect(
            texts == [
                "manual", "shutdown", "removed", "changed", "idle", "trim", "closed", "deadline", "protocol", "pressure", "critical",
                "oom", "exited", "launch-failed",
            ])
        #expect(StopReason.allCases.allSatisfy { "\($0)" == $0.rawValue })
    }

    @Test func pressureKillsFollowTheLevel() {
        #expect(StopReason.pressureKill(at: .low) == .pressure)
        #expect(StopReason.pressureKill(at: .critical) == .critical)
        #expect(StopReason.allCases.filter(\.isPressureKill) == [.pressure, .critical])
    }

    /// Only ends the daemon did not ask for are followed by a restart.
    @Test func onlyUnrequestedEndsCountAsCrashes() {
        #expect(StopReason.allCases.filter { !$0.isRequested } == [.oom, .exited, .launchFailed])
    }
}

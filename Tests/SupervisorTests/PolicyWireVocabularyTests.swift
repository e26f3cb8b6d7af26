import ExtensiondPolicy
import Testing
import WireProtocol

/// The policy keeps its own `UpdateReason` and `ReloadHint` (it links no protocol); the
/// wire's are what extensions see. The two must name the same cases.
@Suite struct PolicyWireVocabularyTests {
    @Test func updateReasonsHaveTheSameWireNames() {
        let policy = ExtensiondPolicy.UpdateReason.allCases.map(\.rawValue)
        let wire = WireProtocol.UpdateReason.allCases.map(\.rawValue)
        #expect(policy == wire)
    }

    /// Exhaustive switches on both sides: a case added to either fails to compile here
    /// until it has a name, and then this test until the other side has the same one.
    @Test func reloadHintsHaveTheSameCases() {
        func name(_ hint: ExtensiondPolicy.ReloadHint) -> String {
            switch hint {
            case .after: "after"
            case .atEnd: "atEnd"
            case .never: "never"
            }
        }
        func name(_ hint: WireProtocol.ReloadHint) -> String {
            switch hint {
            case .after: "after"
            case .atEnd: "atEnd"
            case .never: "never"
            }
        }
        let policy: [ExtensiondPolicy.ReloadHint] = [.after(Instant(nanoseconds: 1)), .atEnd, .never]
        let wire: [WireProtocol.ReloadHint] = [.after(UnixTime(secondsSince1970: 1)), .atEnd, .never]
        #expect(policy.map(name) == wire.map(name))
    }
}

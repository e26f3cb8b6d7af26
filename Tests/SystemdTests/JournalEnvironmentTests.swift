import Systemd
import Testing

/// Under systemd the journal is detected from the environment systemd gives every service,
/// whatever the flags (`--foreground` included).
@Suite struct JournalEnvironmentTests {
    @Test(arguments: [
        (["JOURNAL_STREAM": "8:12345"], true),
        (["INVOCATION_ID": "2f1c5e0a9b7d4c1e8f3a6b5d4c3b2a19"], true),
        (["JOURNAL_STREAM": "8:12345", "INVOCATION_ID": "2f1c5e0a9b7d4c1e8f3a6b5d4c3b2a19"], true),
        (["JOURNAL_STREAM": "", "INVOCATION_ID": ""], false),
        (["TERM": "xterm", "HOME": "/root"], false),
        ([:], false),
    ])
    func aServiceIsKnownByItsEnvironment(environment: [String: String], isService: Bool) {
        #expect(JournalEnvironment.isSystemdService(environment) == isService)
    }
}

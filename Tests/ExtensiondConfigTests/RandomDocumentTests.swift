import ExtensiondConfig
import ExtensiondTestSupport
import Testing

/// Random documents built from config-shaped fragments, valid and not: loading never
/// crashes, and every error it reports names the file and, when it has a line, a line
/// that exists.
@Suite struct RandomDocumentTests {
    static let fragments = [
        "[supervisor]", "[pressure]", "[defaults]", "[defaults.refresh]", "[hosts.h]", "[apps.a]", "[apps.b]",
        "[extensions.w]", "[extensions.w.refresh]", "[extensions.\"x y\"]", "[[hosts]]", "[extensions]",
        "command = [\"/bin/x\"]", "command = [\"../x\", 1]", "command = []", "command = \"x\"",
        "app = \"a\"", "app = \"nope\"", "app = 3", "point = \"widget\"", "point = \"action\"", "point = \"gadget\"",
        "memory_max = \"16M\"", "memory_high = \"32M\"", "memory_max = 0", "memory_max = \"-1\"", "pids_max = -3",
        "interval = \"1m\"", "min_interval = \"1h\"", "max_interval = \"10s\"", "jitter = \"2h\"", "deadline = \"0s\"",
        "daily_budget = 0", "budget_burst = 2", "low = \"99%\"", "critical = \"50%\"", "psi = \"some 1s 2s\"",
        "psi = \"full 1ms 100s\"", "url_schemes = [\"w\", \"W\", \"1x\"]", "groups = [\"g\", \"g/\"]",
        "activation = { \"t\" = 0, \"\" = 1 }", "environment = { A = \"1\", \"B=\" = \"2\", C = 3 }",
        "refresh = 5", "refresh.interval = \"5m\"", "enabled = \"yes\"", "log_files = 1.5", "when = 1979-05-27",
        "unknown = true", "memory_budget = \"1G\"", "runtime_dir = \"relative\"", "metrics_listen = \":80\"",
        "= broken", "[unclosed", "x = \"\"\"\nmulti\n\"\"\"", "# comment", "",
    ]

    @Test func randomDocumentsNeverCrash() throws {
        var random = SeededRandom(seed: 5)
        let directory = try ConfigDirectory()
        var loaded = 0
        for _ in 0..<1_500 {
            let lines = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                Self.fragments.randomElement(using: &random) ?? ""
            }
            let text = lines.joined(separator: "\n")
            let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
            let errors = try directory.errors(text)
            if errors.isEmpty { loaded += 1 }
            for error in errors {
                #expect(error.file == directory.main)
                #expect(!error.message.isEmpty)
                if let line = error.line { #expect((1...max(lineCount, 1)).contains(line), "\(error) in\n\(text)") }
            }
        }
        #expect(loaded > 0)
    }
}

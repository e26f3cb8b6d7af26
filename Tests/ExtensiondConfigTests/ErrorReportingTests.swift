import ExtensiondConfig
import Testing

/// Each kind of mistake gives an error at the right file and line that says what was expected.
@Suite struct ErrorReportingTests {
    /// Loads `text` and returns its only error.
    private func onlyError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> ConfigurationError
    {
        let directory = try ConfigDirectory()
        let errors = try directory.errors(text)
        #expect(errors.count == 1, "\(errors)", sourceLocation: sourceLocation)
        let error = try #require(errors.first, sourceLocation: sourceLocation)
        #expect(error.file == directory.main, sourceLocation: sourceLocation)
        return error
    }

    @Test func tomlSyntaxError() throws {
        let error = try onlyError("[supervisor]\nmemory_budget = \"512M\"\nlog_files = = 3\n")
        #expect(error.line == 3)
        #expect(error.column != nil)
        #expect(error.message.hasPrefix("TOML syntax error"))
    }

    @Test func unknownKeyNamesTheAllowedOnes() throws {
        let error = try onlyError(minimalConfig + "memory_maxx = \"16M\"\n")
        #expect(error.line == 8)
        #expect(error.column == 1)
        #expect(error.keyPath == "extensions.widget.memory_maxx")
        #expect(error.message.contains(#"unknown key "memory_maxx""#))
        #expect(error.message.contains(#""memory_max""#))
        #expect(error.message.contains(#""refresh""#))
    }

    @Test func aMistypedKeySuggestsTheClosestAllowedOne() throws {
        for (typed, meant) in [("memry_max", "memory_max"), ("commnad", "command"), ("aplp", "app"), ("memory_maxx", "memory_max")] {
            let error = try onlyError(minimalConfig + "\(typed) = \"16M\"\n")
            #expect(error.message.contains(#"unknown key "\#(typed)" (did you mean "\#(meant)"?)"#), "\(error.message)")
        }
        // Nothing close: no guess.
        let far = try onlyError(minimalConfig + "colour_scheme = 1\n")
        #expect(!far.message.contains("did you mean"), "\(far.message)")
    }

    @Test func unknownSectionAndRefreshKey() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors(
            minimalConfig + """
                [extensions.widget.refresh]
                intervall = "1m"

                [supervisr]
                """)
        #expect(errors.map(\.keyPath) == ["extensions.widget.refresh.intervall", "supervisr"])
        #expect(errors.map(\.line) == [9, 11])
        #expect(
            errors.last?.message.contains(#""supervisor", "pressure", "defaults", "hosts", "apps", "extensions""#)
                == true)
    }

    @Test func wrongTypeNamesTheExpectedType() throws {
        let error = try onlyError(minimalConfig + "enabled = \"yes\"\n")
        #expect(error.line == 8)
        #expect(error.message == "expected a boolean (true or false), found a string")
    }

    @Test func badSize() throws {
        let error = try onlyError(minimalConfig + "memory_max = \"16MB\"\n")
        #expect(error.line == 8)
        #expect(error.keyPath == "extensions.widget.memory_max")
        #expect(error.message.contains(#"such as "512M""#))
    }

    @Test func zeroSize() throws {
        let error = try onlyError("[supervisor]\nmemory_budget = 0\n")
        #expect(error.line == 2)
        #expect(error.message == "a size must be above 0")
    }

    @Test func badDuration() throws {
        let error = try onlyError(minimalConfig + "[extensions.widget.refresh]\n\ninterval = \"10\"\n")
        #expect(error.line == 10)
        #expect(error.keyPath == "extensions.widget.refresh.interval")
        #expect(error.message.contains(#""10" is not a duration; expected a duration such as"#))
    }

    @Test func unquotedDuration() throws {
        let error = try onlyError(minimalConfig + "idle_exit = 30\n")
        #expect(error.message.contains("in quotes, found an integer"))
    }

    @Test func badShare() throws {
        let error = try onlyError("[pressure]\nlow = \"0.85\"\n")
        #expect(error.line == 2)
        #expect(error.keyPath == "pressure.low")
        #expect(error.message.contains(#"expected a percentage from 0% to 100% such as "85%""#))
    }

    @Test func badPSITrigger() throws {
        let error = try onlyError("[pressure]\n# PSI\npsi = \"some 150ms 20s\"\n")
        #expect(error.line == 3)
        #expect(error.keyPath == "pressure.psi")
        #expect(error.message.contains("500ms to 10s"))
        #expect(error.message.contains("multiple of 2s"))
    }

    @Test func missingAppReference() throws {
        let error = try onlyError(minimalConfig.replacingOccurrences(of: "app = \"app\"", with: "app = \"missing\""))
        #expect(error.line == 5)
        #expect(error.keyPath == "extensions.widget.app")
        #expect(error.message == #"no app "missing" is declared; declared apps: "app""#)
    }

    @Test func duplicateScheme() throws {
        let error = try onlyError(
            """
            [apps.first]
            command = ["/bin/first"]
            url_schemes = ["weather"]

            [apps.second]
            command = ["/bin/second"]
            url_schemes = [
                "other",
                "Weather",
            ]
            """)
        #expect(error.line == 9)
        #expect(error.column == 5)
        #expect(error.keyPath == "apps.second.url_schemes[1]")
        #expect(error.message.contains(#"URL scheme "weather" is already claimed by app "first""#))
    }

    @Test func invalidScheme() throws {
        let error = try onlyError("[apps.a]\ncommand = [\"/a\"]\nurl_schemes = [\"weather://\"]\n")
        #expect(error.keyPath == "apps.a.url_schemes[0]")
        #expect(error.message.contains("is not a URL scheme"))
    }

    @Test func groupOfAnotherApp() throws {
        let error = try onlyError(
            """
            [apps.a]
            command = ["/a"]
            groups = ["group.shared"]
            [apps.b]
            command = ["/b"]
            groups = ["group.shared"]
            """)
        #expect(error.line == 6)
        #expect(error.message.contains(#"app group "group.shared" is already claimed by app "a""#))
    }

    @Test func lowNotBelowCritical() throws {
        let error = try onlyError("[pressure]\nlow = \"95%\"\ncritical = \"90%\"\n")
        #expect(error.line == 2)
        #expect(error.keyPath == "pressure.low")
        #expect(error.message == "low (95%) must be below critical (90%)")
    }

    @Test func lowAgainstDefaultCritical() throws {
        let error = try onlyError("[pressure]\n\ncritical = \"80%\"\n")
        #expect(error.line == 3)
        #expect(error.keyPath == "pressure.critical")
        #expect(error.message == "low (85%) must be below critical (80%)")
    }

    @Test func warnNotBelowLow() throws {
        let error = try onlyError("[pressure]\nwarn = \"90%\"\n")
        #expect(error.line == 2)
        #expect(error.keyPath == "pressure.warn")
        #expect(error.message == "warn (90%) must be below low (85%)")
    }

    @Test func trimWaitOutOfRange() throws {
        let error = try onlyError("[pressure]\ntrim_wait = \"6s\"\n")
        #expect(error.line == 2)
        #expect(error.keyPath == "pressure.trim_wait")
        #expect(error.message.contains("trim_wait must be from 0s to 5s, found 6s"), "\(error.message)")
    }

    @Test func zeroThreshold() throws {
        let error = try onlyError("[pressure]\nlow = \"0%\"\n")
        #expect(error.message.contains("above 0%"))
    }

    @Test func memoryHighAboveMemoryMax() throws {
        let error = try onlyError(minimalConfig + "memory_max = \"16M\"\nmemory_high = \"24M\"\n")
        #expect(error.line == 9)
        #expect(error.keyPath == "extensions.widget.memory_high")
        #expect(error.message.contains("memory_high (24M) must not be above memory_max (16M)"))
    }

    @Test func memoryLowProtectsHostsAndAppsOnly() throws {
        let configuration = try ConfigDirectory().load(
            "[hosts.panel]\ncommand = [\"/bin/panel\"]\nmemory_low = \"32M\"\n\n"
                + minimalConfig.replacingOccurrences(of: "command = [\"/bin/app\"]", with: "command = [\"/bin/app\"]\nmemory_low = \"8M\""))
        #expect(configuration.hosts.first?.limits.memoryLow?.bytes == 32 << 20)
        #expect(configuration.apps.first?.limits.memoryLow?.bytes == 8 << 20)
        let onExtension = try onlyError(minimalConfig + "memory_low = \"8M\"\n")
        #expect(onExtension.keyPath == "extensions.widget.memory_low")
        #expect(onExtension.message.contains("unknown key \"memory_low\""))
        let aboveMax = try onlyError("[hosts.panel]\ncommand = [\"/bin/panel\"]\nmemory_max = \"16M\"\nmemory_low = \"32M\"\n")
        #expect(aboveMax.message.contains("memory_low (32M) must not be above memory_max (16M)"))
    }

    @Test func memoryHighFromDefaultsAboveTheExtensionsMax() throws {
        let error = try onlyError("[defaults]\nmemory_high = \"24M\"\n" + minimalConfig + "memory_max = \"16M\"\n")
        #expect(error.line == 10)
        #expect(error.keyPath == "extensions.widget.memory_max")
    }

    @Test func refreshIntervalsOutOfOrder() throws {
        let error = try onlyError(minimalConfig + "[extensions.widget.refresh]\ninterval = \"1m\"\n")
        #expect(error.keyPath == "extensions.widget.refresh.interval")
        #expect(error.message == "min_interval (5m) must not be above interval (1m)")
    }

    @Test func restartBackoffOutOfOrder() throws {
        let error = try onlyError("[hosts.panel]\ncommand = [\"/bin/panel\"]\nrestart_backoff_base = \"2m\"\n")
        #expect(error.line == 3)
        #expect(error.keyPath == "hosts.panel.restart_backoff_base")
        #expect(error.message == "restart_backoff_base (2m) must not be above restart_backoff_max (1m)")
    }

    @Test func negativeRestartRetries() throws {
        let error = try onlyError("[apps.app]\ncommand = [\"/bin/app\"]\nrestart_retries = -1\n")
        #expect(error.keyPath == "apps.app.restart_retries")
        #expect(error.message.contains("expected an integer from 0 to 1000, found -1"))
    }

    @Test func aTypeConformanceCycleIsRefusedAtTheElementThatClosesIt() throws {
        let error = try onlyError(
            """
            [types]
            "com.example.raw" = ["public.image"]
            "public.image" = [
                "public.data",
                "com.example.raw",
            ]
            """)
        #expect(error.line == 5)
        #expect(error.column == 5)
        #expect(error.keyPath == #"types."public.image"[1]"#)
        #expect(error.message.contains("conformance cycle: public.image → com.example.raw → public.image"), "\(error.message)")
    }

    @Test func typeDeclarationsMustBeArraysOfIdentifiers() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors("[types]\n\"a\" = \"public.data\"\n\"b\" = [\"has space\"]\n")
        #expect(errors.map(\.line) == [2, 3])
        #expect(errors.first?.message.contains("expected an array of the type identifiers it conforms to") == true)
        #expect(errors.last?.message.contains("\"has space\" is not a type identifier") == true)
    }

    @Test func extensionsHaveNoRestartKeys() throws {
        let error = try onlyError(minimalConfig + "restart_retries = 2\n")
        #expect(error.keyPath == "extensions.widget.restart_retries")
        #expect(error.message.contains("unknown key"))
    }

    @Test func constraintAgainstADefaultPointsAtTheExtensionsOwnKey() throws {
        let error = try onlyError(
            "[defaults.refresh]\ninterval = \"10m\"\n" + minimalConfig
                + "[extensions.widget.refresh]\nmin_interval = \"20m\"\n")
        #expect(error.line == 11)
        #expect(error.keyPath == "extensions.widget.refresh.min_interval")
        #expect(error.message == "min_interval (20m) must not be above interval (10m)")
    }

    @Test func constraintBroughtByDefaultsNamesTheExtension() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors("[defaults]\nmemory_high = \"24M\"\nmemory_max = \"16M\"\n" + minimalConfig)
        // Once for [defaults] itself, once as applied to the widget.
        #expect(errors.map(\.keyPath) == ["defaults.memory_high", "defaults.memory_high"])
        #expect(errors.last?.message.hasSuffix("(applies to extensions.widget)") == true)
    }

    @Test func badDefaultIsReportedOnceAtTheDefaults() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors(
            "[defaults]\nidle_exit = \"soon\"\n" + minimalConfig
                + "[extensions.two]\napp = \"app\"\npoint = \"action\"\ncommand = [\"/two\"]\n")
        #expect(errors.count == 1)
        #expect(errors.first?.line == 2)
        #expect(errors.first?.keyPath == "defaults.idle_exit")
    }

    @Test func defaultsTakeOnlyTunableKeys() throws {
        let error = try onlyError("[defaults]\npoint = \"widget\"\n" + minimalConfig)
        #expect(error.keyPath == "defaults.point")
        #expect(error.message.contains("unknown key"))
    }

    @Test(arguments: ["bad/id", "bad id", ".", "..", ""])
    func invalidIDs(id: String) throws {
        let error = try onlyError("[hosts.\"\(id)\"]\ncommand = [\"/bin/x\"]\n")
        #expect(error.line == 1)
        #expect(error.message.contains("cannot be a host id"))
    }

    @Test(arguments: ["[]", "[\"\"]", "\"/bin/x\"", "[1]"])
    func invalidCommands(command: String) throws {
        let error = try onlyError("[hosts.x]\ncommand = \(command)\n")
        #expect(error.line == 2)
        #expect(error.keyPath?.hasPrefix("hosts.x.command") == true)
    }

    @Test func missingRequiredKeys() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors("[extensions.lonely]\n")
        #expect(
            errors.map(\.message) == [
                #"missing required key "app""#, #"missing required key "point""#, #"missing required key "command""#,
            ])
        #expect(errors.allSatisfy { $0.line == 1 })
    }

    @Test func severalMistakesGiveSeveralErrorsInLineOrder() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors(
            """
            [supervisor]
            memory_budget = "lots"
            log_files = 0

            [pressure]
            psi = "some 150ms"

            [apps.app]
            command = []

            [extensions.widget]
            app = "nowhere"
            point = "gadget"
            command = ["/bin/widget"]
            colour = "blue"
            """)
        #expect(errors.map(\.line) == [2, 3, 6, 9, 12, 13, 15])
        #expect(
            errors.map(\.keyPath) == [
                "supervisor.memory_budget", "supervisor.log_files", "pressure.psi", "apps.app.command",
                "extensions.widget.app", "extensions.widget.point", "extensions.widget.colour",
            ])
        #expect(errors.allSatisfy { $0.file == directory.main })
        #expect(ConfigurationErrors(errors).description.split(separator: "\n").count == errors.count)
    }

    @Test func descriptionReadsLikeACompilerDiagnostic() {
        let error = ConfigurationError(file: "/etc/x.toml", line: 3, column: 1, keyPath: "a.b", message: "bad")
        #expect(error.description == "/etc/x.toml:3:1: a.b: bad")
    }
}

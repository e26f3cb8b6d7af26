import ExtensiondConfig
import Testing

/// Loading real files: defaults, drop-ins, relative paths, sorting.
@Suite struct LoaderTests {
    @Test func builtInDefaultsWithoutAnySection() throws {
        let directory = try ConfigDirectory()
        let configuration = try directory.load(minimalConfig)
        let widget = try #require(configuration.extensions.first)

        #expect(configuration.supervisor == SupervisorSettings())
        #expect(configuration.pressure == PressureSettings())
        #expect(widget.refresh == RefreshSettings())
        #expect(widget.limits == ResourceLimits.extensionDefaults)
        #expect(widget.enabled)
        #expect(widget.idleExit == .seconds(30))
        #expect(configuration.apps.first?.autostart == false)
        #expect(configuration.apps.first?.restart == RestartSettings())
        #expect(RestartSettings().backoffBase == .seconds(1))
        #expect(RestartSettings().backoffMax == .seconds(60))
        #expect(RestartSettings().retries == 5)
    }

    @Test func defaultsApplyWhereTheExtensionDoesNotSetTheKey() throws {
        let directory = try ConfigDirectory()
        let configuration = try directory.load(
            minimalConfig + """
                [defaults]
                memory_max = "32M"
                memory_high = "24M"
                pids_max = 16
                priority = 3
                idle_exit = "1m"
                start_timeout = "2s"
                stop_timeout = "500ms"
                enabled = false

                [defaults.refresh]
                interval = "1h"
                daily_budget = 12

                [extensions.other]
                app = "app"
                point = "action"
                command = ["/bin/other"]
                memory_max = "64M"
                idle_exit = "5s"
                activation = { "public.image" = 10, "public.movie" = 1 }

                [extensions.other.refresh]
                daily_budget = 4

                """)
        #expect(configuration.extensions.map(\.id) == ["other", "widget"])
        let other = configuration.extensions[0]
        let widget = configuration.extensions[1]

        #expect(
            widget.limits
                == ResourceLimits(
                    memoryMax: ByteSize(32 << 20), memoryHigh: ByteSize(24 << 20), pidsMax: 16,
                    cpuMax: CPUQuota(percent: 50), cpuWeight: 50))
        #expect(widget.priority == 3)
        #expect(widget.idleExit == .seconds(60))
        #expect(widget.startTimeout == .seconds(2))
        #expect(widget.stopTimeout == .milliseconds(500))
        #expect(widget.enabled == false)
        #expect(widget.refresh.interval == .seconds(3600))
        #expect(widget.refresh.dailyBudget == 12)

        #expect(other.limits.memoryMax == ByteSize(64 << 20))
        #expect(other.limits.memoryHigh == ByteSize(24 << 20))
        #expect(other.idleExit == .seconds(5))
        #expect(other.refresh.interval == .seconds(3600))
        #expect(other.refresh.dailyBudget == 4)
        #expect(other.activation == ["public.image": 10, "public.movie": 1])
    }

    @Test func dropInsMergeInNameOrderAndOverride() throws {
        let directory = try ConfigDirectory()
        try directory.write(
            "extensiond.toml",
            minimalConfig + """
                [supervisor]
                memory_budget = "512M"
                log_files = 5
                """)
        // Written out of order: name order, not creation order, decides.
        try directory.write("extensiond.d/20-late.toml", "[supervisor]\nmemory_budget = \"2G\"\n")
        try directory.write(
            "extensiond.d/10-early.toml",
            """
            [supervisor]
            memory_budget = "1G"

            [extensions.widget]
            memory_max = "8M"

            [hosts.panel]
            command = ["bin/panel"]
            """)
        try directory.write("extensiond.d/.hidden.toml", "this is not = toml [")
        try directory.write("extensiond.d/notes.txt", "not a drop-in")

        let configuration = try ConfigurationLoader.load(path: directory.main)

        #expect(configuration.supervisor.memoryBudget == ByteSize(2 << 30))
        #expect(configuration.supervisor.logFiles == 5)
        #expect(configuration.extensions.first?.limits.memoryMax == ByteSize(8 << 20))
        #expect(configuration.extensions.first?.launch.command == ["/bin/widget"])
        // A relative command in a drop-in resolves against the drop-in's directory.
        #expect(configuration.hosts.first?.launch.command == [directory.path + "/extensiond.d/bin/panel"])
        #expect(
            configuration.sources == [
                directory.main, directory.path + "/extensiond.d/10-early.toml",
                directory.path + "/extensiond.d/20-late.toml",
            ])
    }

    @Test func dropInErrorsNameTheDropIn() throws {
        let directory = try ConfigDirectory()
        try directory.write("extensiond.toml", minimalConfig)
        let dropIn = try directory.write("extensiond.d/50-bad.toml", "[extensions.widget]\n\nmemory_max = \"lots\"\n")

        let errors = directory.loadErrors()
        #expect(errors.count == 1)
        #expect(errors.first?.file == dropIn)
        #expect(errors.first?.line == 3)
        #expect(errors.first?.keyPath == "extensions.widget.memory_max")
    }

    @Test func missingMainFileIsAnError() throws {
        let directory = try ConfigDirectory()
        let errors = directory.loadErrors()
        #expect(errors.count == 1)
        #expect(errors.first?.file == directory.main)
        #expect(errors.first?.message.contains("No such file or directory") == true)
    }

    @Test func relativePathsResolveAgainstTheDeclaringFile() throws {
        let directory = try ConfigDirectory()
        let configuration = try directory.load(
            """
            [hosts.bare]
            command = ["panel", "--flag", "./not/a/program"]

            [hosts.relative]
            command = ["../bin/./panel"]
            working_directory = "data/.."

            [hosts.absolute]
            command = ["/usr//bin/panel"]
            working_directory = "/var/lib/panel"
            """)
        let commands = Dictionary(uniqueKeysWithValues: configuration.hosts.map { ($0.id, $0.launch) })
        let parent = String(directory.path.split(separator: "/").dropLast().joined(separator: "/"))

        #expect(commands["bare"]?.command == ["panel", "--flag", "./not/a/program"])
        #expect(commands["relative"]?.command == ["/" + parent + "/bin/panel"])
        #expect(commands["relative"]?.workingDirectory == directory.path)
        #expect(commands["absolute"]?.command == ["/usr/bin/panel"])
        #expect(commands["absolute"]?.workingDirectory == "/var/lib/panel")
    }

    @Test func everyKeyIsRead() throws {
        let directory = try ConfigDirectory()
        let configuration = try directory.load(
            """
            [supervisor]
            runtime_dir = "/run/x"
            state_dir = "/var/lib/x"
            memory_budget = 1048576
            cgroup = "/sys/fs/cgroup/memory/x"
            metrics_listen = "[::1]:9464"
            log_max_size = "64K"
            log_files = 2

            [pressure]
            low = "70%"
            critical = "90.5%"
            psi = "full 100ms 2s"
            trim_wait = "400ms"

            [hosts.panel]
            command = ["/bin/panel"]
            user = "nobody"
            group = "nogroup"
            environment = { LANG = "C", TZ = "UTC" }
            working_directory = "/tmp"
            memory_max = "8M"
            memory_high = "6M"
            pids_max = 4
            autostart = false
            stop_timeout = "3s"
            restart_backoff_base = "100ms"
            restart_backoff_max = "2s"
            restart_retries = 0

            [apps.app]
            command = ["/bin/app", "--serve"]
            url_schemes = ["Weather", "x-app+1.0"]
            groups = ["group.a", "group.b"]
            autostart = true
            restart_retries = 9

            [extensions.share]
            app = "app"
            point = "share"
            command = ["/bin/share"]

            [extensions.share.refresh]
            interval = "2h"
            min_interval = "1m"
            jitter = "0s"
            max_interval = "1d"
            pull_cooldown = "0s"
            deadline = "1m"
            daily_budget = 100
            budget_burst = 10
            backoff_base = "1s"
            backoff_max = "10m"
            """)
        #expect(configuration.supervisor.memoryBudget == ByteSize(1 << 20))
        #expect(configuration.supervisor.cgroup == "/sys/fs/cgroup/memory/x")
        #expect(configuration.supervisor.metricsListen == "[::1]:9464")
        #expect(configuration.supervisor.logMaxSize == ByteSize(64 << 10))
        #expect(configuration.supervisor.logFiles == 2)
        #expect(configuration.pressure.low == Share(0.7))
        #expect(configuration.pressure.critical == Share(0.905))
        #expect(configuration.pressure.psi == PSITrigger(kind: .full, stall: .milliseconds(100), window: .seconds(2)))
        #expect(configuration.pressure.trimWait == .milliseconds(400))

        let host = try #require(configuration.hosts.first)
        #expect(host.launch.user == "nobody")
        #expect(host.launch.group == "nogroup")
        #expect(host.launch.environment == ["LANG": "C", "TZ": "UTC"])
        #expect(host.launch.workingDirectory == "/tmp")
        #expect(host.limits == ResourceLimits(memoryMax: ByteSize(8 << 20), memoryHigh: ByteSize(6 << 20), pidsMax: 4))
        #expect(host.autostart == false)
        #expect(host.stopTimeout == .seconds(3))
        #expect(host.restart.backoffBase == .milliseconds(100))
        #expect(host.restart.backoffMax == .seconds(2))
        #expect(host.restart.retries == 0)

        let app = try #require(configuration.apps.first)
        #expect(app.urlSchemes == ["weather", "x-app+1.0"])
        #expect(app.groups == ["group.a", "group.b"])
        #expect(app.autostart)
        #expect(app.restart.retries == 9)
        #expect(app.restart.backoffBase == RestartSettings().backoffBase)

        let refresh = try #require(configuration.extensions.first?.refresh)
        #expect(refresh.interval == .seconds(7200))
        #expect(refresh.minInterval == .seconds(60))
        #expect(refresh.jitter == .zero)
        #expect(refresh.effectiveJitter == .zero)
        #expect(refresh.maxInterval == .seconds(86_400))
        #expect(refresh.pullCooldown == .zero)
        #expect(refresh.deadline == .seconds(60))
        #expect(refresh.dailyBudget == 100)
        #expect(refresh.budgetBurst == 10)
        #expect(refresh.backoffBase == .seconds(1))
        #expect(refresh.backoffMax == .seconds(600))
    }

    @Test func entriesAreSortedByID() throws {
        let directory = try ConfigDirectory()
        var text = ""
        for id in ["m", "b", "z", "a", "k"] { text += "[hosts.\(id)]\ncommand = [\"/bin/\(id)\"]\n" }
        #expect(try directory.load(text).hosts.map(\.id) == ["a", "b", "k", "m", "z"])
    }

    @Test func loadingIsDeterministic() throws {
        let directory = try ConfigDirectory()
        try directory.write("extensiond.toml", minimalConfig)
        let first = try ConfigurationLoader.load(path: directory.main)
        for _ in 0..<5 { #expect(try ConfigurationLoader.load(path: directory.main) == first) }
    }
}

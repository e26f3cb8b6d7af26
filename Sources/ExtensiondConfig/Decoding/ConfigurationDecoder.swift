/// Turns the merged tree of a config into a ``Configuration``: the schema of every section,
/// the `[defaults]` overlay and the checks within one entry. Reports every problem it finds.
struct ConfigurationDecoder {
    let diagnostics: Diagnostics

    func decode(_ root: ConfigNode) -> Configuration {
        var configuration = Configuration()
        guard let document = TableReader(root, diagnostics: diagnostics) else { return configuration }
        if let reader = document.table("supervisor") {
            supervisor(reader, into: &configuration.supervisor)
            reader.rejectUnknownKeys()
        }
        if let reader = document.table("pressure") {
            pressure(reader, into: &configuration.pressure)
            reader.rejectUnknownKeys()
        }
        let defaults = document.node("defaults").flatMap(extensionDefaults)
        configuration.hosts = entries(of: document.node("hosts"), kind: "a host id", decode: host)
        configuration.apps = entries(of: document.node("apps"), kind: "an app id", decode: app)
        configuration.extensions = entries(of: document.node("extensions"), kind: "an extension id") { id, node in
            `extension`(id, defaults.map(node.filled(from:)) ?? node)
        }
        if let places = document.node("places") {
            configuration.places = self.places(places)
        }
        if let types = document.node("types") {
            configuration.types = self.types(types)
        }
        document.rejectUnknownKeys()
        return configuration
    }

    // MARK: Sections

    private func supervisor(_ reader: TableReader, into settings: inout SupervisorSettings) {
        reader.read("runtime_dir", .absolutePath, into: &settings.runtimeDirectory)
        reader.read("state_dir", .absolutePath, into: &settings.stateDirectory)
        reader.read("package_drop_in_dir", .absolutePath, into: &settings.packageDropInDirectory)
        reader.read("memory_budget", .size, into: &settings.memoryBudget)
        reader.read("cgroup", .absolutePath, into: &settings.cgroup)
        reader.read("metrics_listen", .listenAddress, into: &settings.metricsListen)
        reader.read("log_max_size", .size, into: &settings.logMaxSize)
        reader.read("log_files", .integer(in: ValueRanges.logFiles), into: &settings.logFiles)
        reader.read("user_range", .idRange, into: &settings.userRange)
        reader.read("sandbox_required", .boolean, into: &settings.sandboxRequired)
        reader.read("control_group", .nonEmptyString, into: &settings.controlGroup)
        reader.read("admin_group", .nonEmptyString, into: &settings.adminGroup)
        reader.read("external_hosts", .boolean, into: &settings.externalHosts)
        reader.read("state_reserve", .size, into: &settings.stateReserve)
        reader.read("output_rate", .size, into: &settings.outputRate)
        reader.read("removed_data_keep", .duration, into: &settings.removedDataKeep)
    }

    private func pressure(_ reader: TableReader, into settings: inout PressureSettings) {
        reader.read("warn", .threshold, into: &settings.warn)
        reader.read("low", .threshold, into: &settings.low)
        reader.read("critical", .threshold, into: &settings.critical)
        reader.read("psi", .psiTrigger, into: &settings.psi)
        reader.read("trim_wait", .trimWait, into: &settings.trimWait)
        if settings.low >= settings.critical {
            reader.report(
                involving: ["low", "critical"],
                "low (\(settings.low)) must be below critical (\(settings.critical))")
        }
        if let warn = settings.warn, warn >= settings.low {
            reader.report(involving: ["warn", "low"], "warn (\(warn)) must be below low (\(settings.low))")
        }
    }

    /// Checks `[defaults]` once and returns the part of it that applies to extensions.
    private func extensionDefaults(_ node: ConfigNode) -> ConfigNode? {
        guard let reader = TableReader(node, diagnostics: diagnostics) else { return nil }
        var scratch = ExtensionSpec(id: "", app: "", point: .widget, launch: LaunchSpec(command: []))
        tunables(reader, into: &scratch)
        reader.rejectUnknownKeys()
        return node.restricted(to: Set(reader.knownKeys))
    }

    /// The entries of `[hosts]`, `[apps]` or `[extensions]`, sorted by id.
    private func entries<Spec>(
        of node: ConfigNode?, kind: String, decode: (String, ConfigNode) -> Spec?
    ) -> [Spec] {
        guard let node else { return [] }
        guard let table = node.table else {
            diagnostics.report(node.mismatch("a table of entries such as [\(node.origin.keyPath).ID]"))
            return []
        }
        // Sized once: the specs stay for the daemon's life, and an array grown by doubling
        // keeps up to twice their size.
        var specs: [Spec] = []
        specs.reserveCapacity(table.count)
        for (id, entry) in table.sorted(by: { $0.key < $1.key }) {
            if let problem = Identifier.problem(with: id, kind: kind) {
                diagnostics.report(entry.origin.error(problem))
            } else if let spec = decode(id, entry) {
                specs.append(spec)
            }
        }
        return specs
    }

    // MARK: Entries

    private func host(_ id: String, _ node: ConfigNode) -> HostSpec? {
        guard let reader = TableReader(node, diagnostics: diagnostics) else { return nil }
        defer { reader.rejectUnknownKeys() }
        let launch = self.launch(reader)
        var host = HostSpec(id: id, launch: launch ?? LaunchSpec(command: []))
        limits(reader, into: &host.limits)
        protection(reader, into: &host.limits)
        reader.read("autostart", .boolean, into: &host.autostart)
        reader.read("stop_timeout", .duration, into: &host.stopTimeout)
        restart(reader, into: &host.restart)
        reader.read("extensions", ValueKind.identifier("an extension id").list, into: &host.extensions)
        reader.read("manage", .boolean, into: &host.manage)
        return launch == nil ? nil : host
    }

    private func app(_ id: String, _ node: ConfigNode) -> AppSpec? {
        guard let reader = TableReader(node, diagnostics: diagnostics) else { return nil }
        defer { reader.rejectUnknownKeys() }
        let launch = self.launch(reader)
        var app = AppSpec(id: id, launch: launch ?? LaunchSpec(command: []))
        limits(reader, into: &app.limits)
        protection(reader, into: &app.limits)
        reader.read("autostart", .boolean, into: &app.autostart)
        reader.read("stop_timeout", .duration, into: &app.stopTimeout)
        restart(reader, into: &app.restart)
        reader.read("url_schemes", ValueKind.urlScheme.list, into: &app.urlSchemes)
        reader.read("groups", ValueKind.identifier("an app group name").list, into: &app.groups)
        reader.read("disk_max", .diskSize, into: &app.diskMax)
        sandbox(reader, into: &app.sandbox)
        return launch == nil ? nil : app
    }

    private func `extension`(_ id: String, _ node: ConfigNode) -> ExtensionSpec? {
        guard let reader = TableReader(node, diagnostics: diagnostics) else { return nil }
        defer { reader.rejectUnknownKeys() }
        let app = reader.require("app", .identifier("an app id"))
        let point = reader.require("point", .extensionPoint)
        let launch = self.launch(reader)
        var spec = ExtensionSpec(
            id: id, app: app ?? "", point: point ?? .widget, launch: launch ?? LaunchSpec(command: []))
        tunables(reader, into: &spec)
        reader.read("activation", .activation, into: &spec.activation)
        if point == .widget && !spec.activation.isEmpty {
            reader.report(involving: ["activation"], "activation applies to action and share extensions, not widgets")
        }
        if let modes = reader.read("modes", .modes) {
            spec.modes = modes
            if let point, point != .widget {
                reader.report(involving: ["modes"], "modes applies to widgets, not \(point.rawValue) extensions")
            }
        }
        reader.read("card_template", .path, into: &spec.cardTemplate)
        if let point, point != .widget, spec.cardTemplate != nil {
            reader.report(involving: ["card_template"], "card_template applies to widgets, not \(point.rawValue) extensions")
        }
        gallery(reader, point: point, into: &spec.gallery)
        guard app != nil, point != nil, launch != nil else { return nil }
        return spec
    }

    // MARK: Key groups

    /// `command`, `user`, `group`, `environment`, `working_directory`, `output`; `nil` without a valid command.
    private func launch(_ reader: TableReader) -> LaunchSpec? {
        let command = reader.require("command", .command)
        var launch = LaunchSpec(command: command ?? [])
        reader.read("user", .nonEmptyString, into: &launch.user)
        reader.read("group", .nonEmptyString, into: &launch.group)
        reader.read("environment", .environment, into: &launch.environment)
        reader.read("working_directory", .directory, into: &launch.workingDirectory)
        reader.read("output", .choice(of: OutputDestination.self, "an output"), into: &launch.output)
        return command == nil ? nil : launch
    }

    private func limits(_ reader: TableReader, into limits: inout ResourceLimits) {
        reader.read("memory_max", .size, into: &limits.memoryMax)
        reader.read("memory_high", .size, into: &limits.memoryHigh)
        reader.read("pids_max", .integer(in: ValueRanges.pidsMax), into: &limits.pidsMax)
        reader.read("cpu_max", .cpuQuota, into: &limits.cpuMax)
        reader.read("cpu_weight", .integer(in: ResourceLimits.cpuWeights), into: &limits.cpuWeight)
        if let high = limits.memoryHigh, let max = limits.memoryMax, high > max {
            reader.report(
                involving: ["memory_high", "memory_max"],
                "memory_high (\(high)) must not be above memory_max (\(max))")
        }
    }

    /// `memory_low` of hosts and apps: extensions are what the kernel should reclaim.
    private func protection(_ reader: TableReader, into limits: inout ResourceLimits) {
        reader.read("memory_low", .size, into: &limits.memoryLow)
        if let low = limits.memoryLow, let max = limits.memoryMax, low > max {
            reader.report(involving: ["memory_low", "memory_max"], "memory_low (\(low)) must not be above memory_max (\(max))")
        }
    }

    /// `restart_backoff_base`, `restart_backoff_max`, `restart_retries` of hosts and apps.
    private func restart(_ reader: TableReader, into settings: inout RestartSettings) {
        reader.read("restart_backoff_base", .positiveDuration, into: &settings.backoffBase)
        reader.read("restart_backoff_max", .positiveDuration, into: &settings.backoffMax)
        reader.read("restart_retries", .integer(in: ValueRanges.restartRetries), into: &settings.retries)
        orderCheck(reader, "restart_backoff_base", settings.backoffBase, "restart_backoff_max", settings.backoffMax)
    }

    /// The keys `[defaults]` may set for every extension.
    private func tunables(_ reader: TableReader, into spec: inout ExtensionSpec) {
        limits(reader, into: &spec.limits)
        reader.read("disk_max", .diskSize, into: &spec.diskMax)
        reader.read("priority", .integer, into: &spec.priority)
        reader.read("enabled", .boolean, into: &spec.enabled)
        reader.read("idle_exit", .duration, into: &spec.idleExit)
        reader.read("suspend_after", .duration, into: &spec.suspendAfter)
        reader.read("start_timeout", .positiveDuration, into: &spec.startTimeout)
        reader.read("stop_timeout", .duration, into: &spec.stopTimeout)
        sandbox(reader, into: &spec.sandbox)
        if let refresh = reader.table("refresh") {
            self.refresh(refresh, into: &spec.refresh)
            refresh.rejectUnknownKeys()
        }
    }

    /// `[...sandbox]`: `enabled`, `network`, `read`, `write`.
    private func sandbox(_ reader: TableReader, into settings: inout SandboxSettings) {
        guard let table = reader.table("sandbox") else { return }
        table.read("enabled", .boolean, into: &settings.enabled)
        table.read("network", .boolean, into: &settings.network)
        table.read("read", ValueKind.path.list, into: &settings.read)
        table.read("write", ValueKind.path.list, into: &settings.write)
        table.rejectUnknownKeys()
    }

    private func refresh(_ reader: TableReader, into settings: inout RefreshSettings) {
        reader.read("interval", .positiveDuration, into: &settings.interval)
        reader.read("min_interval", .positiveDuration, into: &settings.minInterval)
        reader.read("jitter", .duration, into: &settings.jitter)
        reader.read("max_interval", .positiveDuration, into: &settings.maxInterval)
        reader.read("pull_cooldown", .duration, into: &settings.pullCooldown)
        reader.read("deadline", .positiveDuration, into: &settings.deadline)
        reader.read("daily_budget", .integer(in: ValueRanges.refreshTokens), into: &settings.dailyBudget)
        reader.read("budget_burst", .integer(in: ValueRanges.refreshTokens), into: &settings.budgetBurst)
        reader.read("backoff_base", .positiveDuration, into: &settings.backoffBase)
        reader.read("backoff_max", .positiveDuration, into: &settings.backoffMax)
        orderCheck(reader, "min_interval", settings.minInterval, "interval", settings.interval)
        orderCheck(reader, "interval", settings.interval, "max_interval", settings.maxInterval)
        orderCheck(reader, "backoff_base", settings.backoffBase, "backoff_max", settings.backoffMax)
        if let jitter = settings.jitter {
            orderCheck(reader, "jitter", jitter, "interval", settings.interval)
        }
    }

    /// Reports unless `lower <= upper`.
    private func orderCheck(
        _ reader: TableReader, _ lowerKey: String, _ lower: Duration, _ upperKey: String, _ upper: Duration
    ) {
        guard lower > upper else { return }
        reader.report(
            involving: [lowerKey, upperKey],
            "\(lowerKey) (\(lower.configSpelling)) must not be above \(upperKey) (\(upper.configSpelling))")
    }
}

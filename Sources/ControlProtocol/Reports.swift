import WireProtocol

/// `supervisorctl pull`: the snapshot a host would get, and where it came from.
public struct PullReport: Codable, CompleteKeys, Sendable, Equatable {
    public var extensionID: String
    /// `newData`, `noData`, `failed` or `cached` (the host protocol's `result`).
    public var result: String
    /// `cached`, `coalesced` or `updated`: how the pull was served.
    public var delivery: String
    public var snapshot: JSONValue?
    public var version: UInt64
    public var ageMs: UInt64
    public var stale: Bool
    public var error: String?
    /// From the request to the answer, measured in the daemon.
    public var latencyUs: UInt64

    public init(
        extensionID: String, result: String, delivery: String, snapshot: JSONValue?, version: UInt64,
        ageMs: UInt64, stale: Bool, error: String?, latencyUs: UInt64
    ) {
        self.extensionID = extensionID
        self.result = result
        self.delivery = delivery
        self.snapshot = snapshot
        self.version = version
        self.ageMs = ageMs
        self.stale = stale
        self.error = error
        self.latencyUs = latencyUs
    }
}

/// `supervisorctl stats`: per process, then the daemon itself.
public struct StatsReport: Codable, CompleteKeys, Sendable, Equatable {
    public var processes: [ProcessStats]
    public var daemon: DaemonStats

    public init(processes: [ProcessStats], daemon: DaemonStats) {
        self.processes = processes
        self.daemon = daemon
    }
}

/// The counters and latencies of one host, app or extension.
public struct ProcessStats: Codable, CompleteKeys, Sendable, Equatable {
    public var name: String
    public var kind: ProcessKind
    public var rssBytes: UInt64?
    public var peakRSSBytes: UInt64?
    public var memoryCurrentBytes: UInt64?
    public var memoryPeakBytes: UInt64?
    public var launches: Int = 0
    public var launchLatencyUs: Latency?
    public var updateLatencyUs: Latency?
    public var pullsCached: Int = 0
    public var pullsCoalesced: Int = 0
    public var pullsUpdated: Int = 0
    public var resultsNewData: Int = 0
    public var resultsNoData: Int = 0
    public var resultsFailed: Int = 0
    /// Kills by reason (`pressure`, `critical`, `oom`, `deadline`, `idle`, `protocol`, `manual`).
    public var kills: [String: Int] = [:]
    /// Times an extension was suspended (`suspend_after`).
    public var suspensions: Int = 0
    /// Scheduled refreshes the token bucket allows right now.
    public var budgetLeft: Int?
    /// Milliseconds until the next scheduled refresh, when one is scheduled.
    public var nextRefreshInMs: Int64?
    /// Output bytes not captured: past the capture rate, or not writable (a full disk).
    public var outputDroppedBytes: Int = 0

    public init(name: String, kind: ProcessKind) {
        self.name = name
        self.kind = kind
    }
}

/// Percentiles of a latency distribution, in microseconds.
public struct Latency: Codable, CompleteKeys, Sendable, Equatable {
    public var count: Int
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var max: UInt64

    public init(count: Int, p50: UInt64, p90: UInt64, p99: UInt64, max: UInt64) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }
}

/// The daemon's own figures.
public struct DaemonStats: Codable, CompleteKeys, Sendable, Equatable {
    public var rssBytes: UInt64
    public var anonymousBytes: UInt64
    public var cpuUserMs: Int64
    public var cpuSystemMs: Int64
    /// `v1` or `v2`.
    public var cgroupBackend: String
    /// `none`, `low` or `critical`.
    public var pressureLevel: String

    public init(rssBytes: UInt64, anonymousBytes: UInt64, cpuUserMs: Int64, cpuSystemMs: Int64, cgroupBackend: String, pressureLevel: String) {
        self.rssBytes = rssBytes
        self.anonymousBytes = anonymousBytes
        self.cpuUserMs = cpuUserMs
        self.cpuSystemMs = cpuSystemMs
        self.cgroupBackend = cgroupBackend
        self.pressureLevel = pressureLevel
    }
}

/// `supervisorctl pressure`: budget use, watermarks, PSI, and what detects pressure here.
public struct PressureReport: Codable, CompleteKeys, Sendable, Equatable {
    public var cgroupBackend: String
    public var budgetBytes: UInt64?
    public var usageBytes: UInt64
    /// `pressure.warn`: extensions are warned when usage crosses it.
    public var warnBytes: UInt64?
    public var lowBytes: UInt64?
    public var criticalBytes: UInt64?
    /// `none`, `low` or `critical`.
    public var level: String
    /// PSI averages of memory (`some avg10`, `full avg60`…), system-wide and for the tree where known.
    public var psi: [String: Double]
    /// The detection mechanisms armed on this kernel and backend, e.g. `v1 usage threshold eventfd`.
    public var mechanisms: [String]

    public init(
        cgroupBackend: String, budgetBytes: UInt64?, usageBytes: UInt64, warnBytes: UInt64?, lowBytes: UInt64?,
        criticalBytes: UInt64?, level: String, psi: [String: Double], mechanisms: [String]
    ) {
        self.cgroupBackend = cgroupBackend
        self.budgetBytes = budgetBytes
        self.usageBytes = usageBytes
        self.warnBytes = warnBytes
        self.lowBytes = lowBytes
        self.criticalBytes = criticalBytes
        self.level = level
        self.psi = psi
        self.mechanisms = mechanisms
    }
}

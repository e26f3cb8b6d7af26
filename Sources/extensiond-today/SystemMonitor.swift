import ControlProtocol
import EventLoop
import Glibc
import Sockets
import WireProtocol

/// What the System page draws: every few seconds the daemon's `status`, `pressure` and
/// `events` (read-only control commands, docs/CLI.md) are asked for on `control.sock`, and
/// the last minutes are kept as numbers: each process's memory and limit, the tree's usage
/// and watermarks, and the kills. Control access is the daemon's to grant (docs/HOSTS.md).
///
/// Sampling runs only while a System page is open (asked for its figures within
/// ``keptSamples`` intervals): decoding the answers takes the program's only thread, and
/// the Today page's pushes would wait behind it (bench/README.md, "today").
final class SystemMonitor {
    private let loop: EventLoop
    private let controlSocket: String
    private var timer: EventSource?
    private var exchanges: [Int32: (connection: Connection, framer: LineFramer)] = [:]
    private var samples: [Sample] = []
    private var limits: [String: UInt64] = [:]
    private var kinds: [String: String] = [:]
    private var pressure: PressureReport?
    private var kills: [EventRecord] = []
    private var lastError: String?
    /// Samples still to take before sampling stops, unless the page asks again.
    private var samplesLeft = 0

    /// How often the daemon is asked, and how many samples are kept (10 minutes).
    static let interval = Duration.seconds(5)
    static let keptSamples = 120
    /// Events read each time; kills among them are kept, at most ``keptKills``.
    static let eventLines = 200
    static let keptKills = 100

    struct Sample {
        var timeMs: Int64
        var treeBytes: UInt64?
        var processBytes: [String: UInt64]
    }

    init(loop: EventLoop, controlSocket: String) {
        self.loop = loop
        self.controlSocket = controlSocket
    }

    func close() {
        timer = nil
        for exchange in exchanges.values { exchange.connection.close() }
    }

    private func tick() {
        guard samplesLeft > 0 else { return timer = nil }
        samplesLeft -= 1
        sample()
        timer = loop.addTimer(after: Self.interval, accuracy: .milliseconds(500)) { [unowned self] in self.tick() }
    }

    private func sample() {
        samples.append(Sample(timeMs: Self.wallMilliseconds(), treeBytes: nil, processBytes: [:]))
        if samples.count > Self.keptSamples { samples.removeFirst(samples.count - Self.keptSamples) }
        for request in [ControlRequest.status(NameSelection()), .pressure, .events(LogRequest(lines: Self.eventLines))] {
            ask(request)
        }
    }

    private func ask(_ request: ControlRequest) {
        do {
            let fd = try UnixSocket.connect(path: controlSocket)
            let connection = try Connection(
                loop: loop, fd: fd,
                onData: { [unowned self] connection, bytes in self.receive(bytes, on: connection) },
                onClose: { [unowned self] connection in self.exchanges.removeValue(forKey: connection.fd) }
            )
            exchanges[fd] = (connection, LineFramer(maxLineLength: ControlLimits.answerBytes))
            connection.send(ControlCodec.line(request))
        } catch {
            lastError = "\(controlSocket): \(error)"
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        guard var exchange = exchanges[connection.fd] else { return }
        do {
            try exchange.framer.append(bytes)
            exchanges[connection.fd] = exchange
            guard let line = try exchange.framer.nextLine() else { return }
            record(try ControlCodec.decode(ControlResponse.self, from: line))
        } catch {
            lastError = "control answer: \(error)"
        }
        connection.close()
    }

    private func record(_ answer: ControlResponse) {
        guard answer.ok else { return lastError = answer.error ?? "the daemon refused a control request" }
        lastError = nil
        if let status = answer.status {
            for process in status {
                kinds[process.name] = process.kind.rawValue
                if let limit = process.memoryLimitBytes { limits[process.name] = limit }
                if let current = process.memoryCurrentBytes ?? process.rssBytes { samples[samples.count - 1].processBytes[process.name] = current }
            }
        }
        if let report = answer.pressure {
            pressure = report
            samples[samples.count - 1].treeBytes = report.usageBytes
        }
        if let events = answer.events {
            let newest = kills.last?.sequence ?? 0
            kills += events.filter { ($0.kind == .kill || $0.kind == .oom) && $0.sequence > newest }
            if kills.count > Self.keptKills { kills.removeFirst(kills.count - Self.keptKills) }
        }
    }

    /// `/system.json`: what the page draws (the first request starts sampling).
    func report() -> [UInt8] {
        if samplesLeft == 0 && timer == nil {
            samplesLeft = Self.keptSamples
            tick()
        }
        samplesLeft = Self.keptSamples
        func number(_ value: UInt64?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        let points: [JSONValue] = samples.map { sample in
            .object([
                "t": .number(Double(sample.timeMs)), "tree": number(sample.treeBytes),
                "processes": .object(sample.processBytes.mapValues { .number(Double($0)) }),
            ])
        }
        let killList: [JSONValue] = kills.map { event in
            .object([
                "t": .number(Double(event.timeMs)), "name": event.name.map(JSONValue.string) ?? .null,
                "reason": event.reason.map(JSONValue.string) ?? .null, "message": .string(event.message),
            ])
        }
        let report: JSONValue = .object([
            "now": .number(Double(Self.wallMilliseconds())), "error": lastError.map(JSONValue.string) ?? .null,
            "budget": number(pressure?.budgetBytes), "warn": number(pressure?.warnBytes), "low": number(pressure?.lowBytes),
            "critical": number(pressure?.criticalBytes), "level": pressure.map { .string($0.level) } ?? .null,
            "limits": .object(limits.mapValues { .number(Double($0)) }), "kinds": .object(kinds.mapValues(JSONValue.string)),
            "samples": .array(points), "kills": .array(killList),
        ])
        return report.encoded().bytes
    }

    private static func wallMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}

/// The Swift SDK's test kit: drives a ``Widget`` as the supervisor does, without a daemon.
/// Owns the supervisor's side of one widget's socket; must not need a running daemon.
///
/// ```swift
/// let driver = try WidgetDriver(Clock())
/// driver.defaults["group.demo"] = ["count": 41]
/// let result = try driver.update(mode: .expanded)
/// #expect(result.result == .newData)
/// ```
///
/// The widget runs on a thread of its own over a socket pair; the driver answers its
/// `defaults`, `openURL` and `setHasContent` from the properties below.
@_exported import ExtensionSDK
import WireProtocol

#if canImport(Glibc)
import Glibc
#endif

public final class WidgetDriver {
    /// The shared defaults, by group, then key. A group absent here is refused, as the
    /// supervisor refuses a group of another app.
    public var defaults: [String: [String: JSONValue]] = [:]
    /// The URL schemes an app opens; `openURL` of any other fails.
    public var urlSchemes: Set<String> = ["demo"]
    /// The URLs the widget opened, in order.
    public private(set) var openedURLs: [String] = []
    /// The last `setHasContent`.
    public private(set) var hasContent = true
    /// How long the widget may take to answer, in seconds (the supervisor's `deadline`).
    public var deadline: Double = 10

    private let descriptor: Int32
    private var framer = LineFramer()
    private var nextID: RequestID = 1
    private var thread = pthread_t()

    /// Starts `widget` and waits for its `ready`.
    public init<W: Widget>(_ widget: W) throws(WidgetDriverError) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw WidgetDriverError("socketpair: errno \(errno)")
        }
        descriptor = pair[0]
        let serve = Unmanaged.passRetained(Serving(widget: widget, descriptor: pair[1]))
        guard
            pthread_create(
                &thread, nil,
                { context in
                    let serving = Unmanaged<Serving>.fromOpaque(context!).takeRetainedValue()
                    serving.run()
                    return nil
                }, serve.toOpaque()) == 0
        else {
            serve.release()
            throw WidgetDriverError("pthread_create failed")
        }
        guard case .ready(let ready) = try receive(waitingFor: "ready"), ready.protocol == 1 else {
            throw WidgetDriverError("the first message must be ready with protocol 1")
        }
    }

    deinit {
        terminate()
        close(descriptor)
    }

    /// Sends an `update` and returns the widget's `result`.
    public func update(
        mode: DisplayMode = .compact, maxSize: Size = Size(width: 320, height: 120),
        reason: UpdateReason = .manual, instance: String? = nil, params: JSONValue? = nil
    )
        throws(WidgetDriverError) -> ExtensionToSupervisor.Result
    {
        let id = nextID
        nextID = id.next
        try send(.update(.init(id: id, mode: mode, maxSize: maxSize, reason: reason, instance: instance, params: params)))
        while true {
            switch try receive(waitingFor: "result") {
            case .result(let result) where result.id == id:
                if result.result == .newData && result.snapshot == nil { throw WidgetDriverError("newData without a snapshot") }
                return result
            case .result(let result):
                throw WidgetDriverError("a result for id \(result.id); the outstanding update is \(id)")
            case .openURL(let request):
                let scheme = request.url.split(separator: ":").first.map { $0.lowercased() } ?? ""
                let success = urlSchemes.contains(scheme)
                if success { openedURLs.append(request.url) }
                try send(.openURLResult(.init(id: request.id, success: success)))
            case .defaults(let request):
                try send(.defaultsResult(.init(id: request.id, outcome: answer(request))))
            case .setHasContent(let request):
                hasContent = request.value
            case let other:
                throw WidgetDriverError("unexpected while updating: \(other)")
            }
        }
    }

    /// Sends a `memoryWarning`.
    public func memoryWarning(current: UInt64, high: UInt64) throws(WidgetDriverError) {
        try send(.memoryWarning(.init(current: current, high: high)))
    }

    /// Sends `terminate` and waits for the widget's thread to end (once).
    public func terminate() {
        guard thread != pthread_t() else { return }
        try? send(.terminate)
        pthread_join(thread, nil)
        thread = pthread_t()
    }

    private func answer(_ request: ExtensionToSupervisor.Defaults) -> SupervisorToExtension.DefaultsResult.Outcome {
        guard var store = defaults[request.group] else { return .error("group \"\(request.group)\" does not belong to the widget's app") }
        defer { defaults[request.group] = store }
        switch request.op {
        case .get: return .value(request.key.flatMap { store[$0] } ?? .null)
        case .set: if let key = request.key { store[key] = request.value ?? .null }; return .value(.null)
        case .remove: if let key = request.key { store[key] = nil }; return .value(.null)
        case .list: return .value(.array(store.keys.sorted().map { .string($0) }))
        }
    }

    private func send(_ message: SupervisorToExtension) throws(WidgetDriverError) {
        let line = message.encodedLine()
        let sent = line.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == line.count else { throw WidgetDriverError("send: the widget's socket is closed") }
    }

    private func receive(waitingFor what: String) throws(WidgetDriverError) -> ExtensionToSupervisor {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            do {
                if let line = try framer.nextLine() { return try ExtensionToSupervisor.decode(line: line) }
            } catch {
                throw WidgetDriverError("protocol violation: \(error)")
            }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(deadline * 1000)) == 1 else { throw WidgetDriverError("no \(what) within \(deadline) s") }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw WidgetDriverError("the widget closed its socket while the driver waited for \(what)") }
            do { try framer.append(chunk[..<count]) } catch { throw WidgetDriverError("protocol violation: \(error)") }
        }
    }
}

/// What went wrong while driving a widget: what the supervisor would have killed it for.
public struct WidgetDriverError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The widget and its end of the socket, handed to its thread.
private final class Serving {
    let run: () -> Void

    init<W: Widget>(widget: W, descriptor: Int32) {
        run = {
            try? ExtensionRuntime.serve(widget, descriptor: descriptor)
            close(descriptor)
        }
    }
}

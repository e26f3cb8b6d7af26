#if canImport(Glibc)
import Glibc
#endif

/// Runs an extension: connects to the supervisor through fd 3, says `ready`, and answers
/// requests until told to `terminate`.
public enum ExtensionRuntime {
    /// Serves `widget` and exits: status 0 after `terminate` or when the supervisor closes
    /// the connection, 1 (with a message on stderr) when the connection fails.
    public static func run<W: Widget>(_ widget: W) -> Never {
        var handler = WidgetHandler(widget: widget)
        runAndExit(&handler)
    }

    /// Serves `action` and exits, as ``run(_:)-(Widget)`` does.
    public static func run<A: Action>(_ action: A) -> Never {
        var handler = ActionHandler(action: action)
        runAndExit(&handler)
    }

    /// Serves `widget` on the connected socket `descriptor` until `terminate` or end of
    /// file, and returns instead of exiting: for test kits (ExtensionSDKTesting) and
    /// programs that serve a widget on a socket of their own. Throws when the connection fails.
    public static func serve<W: Widget>(_ widget: W, descriptor: Int32) throws {
        var handler = WidgetHandler(widget: widget)
        do {
            try serve(&handler, descriptor: descriptor, environment: ProcessEnvironment(descriptor: descriptor))
        } catch .closed {
            return
        }
    }

    private static func runAndExit(_ handler: inout some RequestHandler) -> Never {
        let environment = ProcessEnvironment()
        do {
            try serve(&handler, descriptor: environment.descriptor, environment: environment)
            exit(0)
        } catch .closed {
            exit(0)
        } catch {
            let message = Array("extension \(environment.extensionID): \(error)\n".utf8)
            _ = message.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            exit(1)
        }
    }

    /// Says `ready`, then answers requests on `descriptor` until `terminate`.
    static func serve(
        _ handler: inout some RequestHandler, descriptor: Int32, environment: ProcessEnvironment
    ) throws(ConnectionError) {
        let connection = SupervisorConnection(descriptor: descriptor)
        let context = ExtensionContext(
            connection: connection, extensionID: environment.extensionID,
            groupContainers: environment.groupContainers)
        try connection.send(.ready(.init()))
        while true {
            let message = try connection.receive()
            switch message {
            case .terminate:
                return
            case .memoryWarning(let warning):
                handler.memoryWarning(warning, context: context)
                FreedMemory.release()
            case .update, .execute, .begin:
                if let answer = handler.answer(message, context: context) { try connection.send(answer) }
                FreedMemory.release()
            case .openURLResult, .defaultsResult:
                continue  // The answer to a request that was given up; nothing waits for it.
            }
        }
    }
}

/// What the runtime reads from the process environment.
struct ProcessEnvironment {
    var descriptor: Int32 = ExtensionEnvironment.socketDescriptor
    var extensionID = ""
    var groupContainers: [String: String] = [:]

    /// Defaults for tests: no id, no groups.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The real environment of this process.
    init() {
        if let text = Self.variable(ExtensionEnvironment.fdVariable), let descriptor = Int32(text) {
            self.descriptor = descriptor
        }
        extensionID = Self.variable(ExtensionEnvironment.extensionIDVariable) ?? ""
        groupContainers = ExtensionEnvironment.decodeGroupContainers(
            Self.variable(ExtensionEnvironment.groupContainersVariable) ?? "")
    }

    private static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

import Glibc
import HostClient
import HostProtocol

/// The panel's loop, on one thread: poll(2) on the socket and stdin with the time left
/// until the next periodic refresh as the timeout.
///
/// A refresh sends `list`; its answer prints the extensions when they changed, subscribes
/// to the newly enabled ones and pulls every enabled widget with content. Re-listing each
/// time picks up `supervisorctl enable`/`disable` while the panel runs.
struct Panel {
    /// How often the panel refreshes on its own.
    static let refreshInterval: Int64 = 10_000_000_000
    /// The room the panel gives a widget.
    static let maxSize = Size(width: 320, height: 160)

    let connection: HostConnection
    private var listed: [SupervisorToHost.ExtensionInfo] = []
    private var subscribed: Set<String> = []
    /// Widgets whose link the panel has opened (once each, as a user's first tap would).
    private var tapped: Set<String> = []
    private var nextID: RequestID = 1
    /// Stdin ends at once under the daemon (/dev/null); the timer keeps the panel going.
    private var readsInput = true

    init(connection: HostConnection) {
        self.connection = connection
    }

    /// Runs until the connection ends or fails (SIGTERM ends the process).
    mutating func run() throws(HostConnectionError) {
        try refresh()
        var nextRefresh = Self.monotonicNanoseconds() + Self.refreshInterval
        while true {
            var descriptors = [
                pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: readsInput ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0),
            ]
            let timeout = max(0, (nextRefresh - Self.monotonicNanoseconds()) / 1_000_000)
            if poll(&descriptors, nfds_t(descriptors.count), Int32(clamping: timeout)) < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "poll", errno: errno)
            }
            if descriptors[0].revents != 0 {
                for message in try connection.receive() { try handle(message) }
            }
            if descriptors[1].revents != 0 && readEnter() {
                try refresh()
                nextRefresh = Self.monotonicNanoseconds() + Self.refreshInterval
            }
            if Self.monotonicNanoseconds() >= nextRefresh {
                try refresh()
                nextRefresh = Self.monotonicNanoseconds() + Self.refreshInterval
            }
        }
    }

    private mutating func handle(_ message: SupervisorToHost) throws(HostConnectionError) {
        switch message {
        case .extensions(let answer): try update(answer.extensions)
        case .snapshot(let snapshot):
            Console.line(NoticeText.snapshot(snapshot))
            try tapOnce(snapshot)
        case .extensionTerminated(let notice): Console.line(NoticeText.terminated(notice))
        case .openURL(let notice): Console.line(NoticeText.openURL(notice))
        case .openResult(let result): Console.line(NoticeText.openResult(result))
        case .error(let error): Console.error(NoticeText.error(error))
        case .hasContentChanged(let notice):
            Console.line(NoticeText.hasContent(notice))
            try refresh()
        // The panel performs no actions, is no app, manages nothing and shows no images.
        case .completed, .defaultsResult, .reloadResult, .enableResult, .addInstanceResult, .removeInstanceResult, .arrangeResult,
            .assetResult:
            break
        }
    }

    /// A tap on a widget whose snapshot has a `link`: `open` sends the URL to the widget's
    /// containing app, which the daemon launches if needed; the widget is not launched.
    private mutating func tapOnce(_ snapshot: SupervisorToHost.Snapshot) throws(HostConnectionError) {
        guard !tapped.contains(snapshot.extensionID), case .object(let fields)? = try? snapshot.snapshot?.decoded(),
            case .string(let link)? = fields["link"]
        else { return }
        tapped.insert(snapshot.extensionID)
        Console.line(NoticeText.tap(snapshot.extensionID, link))
        try connection.send(.open(.init(id: takeID(), extensionID: snapshot.extensionID, url: link)))
    }

    private mutating func refresh() throws(HostConnectionError) {
        try connection.send(.list(.init(id: takeID())))
    }

    private mutating func update(_ extensions: [SupervisorToHost.ExtensionInfo]) throws(HostConnectionError) {
        if extensions != listed {
            extensions.forEach { Console.line(NoticeText.listing($0)) }
            listed = extensions
        }
        let enabled = extensions.filter(\.enabled)
        let newlyEnabled = enabled.map(\.id).filter { !subscribed.contains($0) }
        if !newlyEnabled.isEmpty {
            try connection.send(.subscribe(.init(extensions: newlyEnabled)))
            subscribed.formUnion(newlyEnabled)
        }
        for widget in enabled where widget.point == "widget" && widget.hasContent {
            try connection.send(.pull(.init(id: takeID(), extensionID: widget.id, mode: .compact, maxSize: Self.maxSize)))
        }
    }

    /// Whether a whole line was typed; stops watching stdin at its end, quietly.
    private mutating func readEnter() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return false }
        guard count > 0 else {
            readsInput = false
            return false
        }
        return buffer[0..<count].contains(UInt8(ascii: "\n"))
    }

    private mutating func takeID() -> RequestID {
        defer { nextID = nextID.next }
        return nextID
    }

    private static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

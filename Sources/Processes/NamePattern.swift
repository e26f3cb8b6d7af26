import Glibc

/// A name on the command line: an exact name, a shell glob (`com.example.*`), or
/// `APP:PATTERN`, which matches among an app and its extensions (`APP:*`: all of them),
/// as supervisord's `group:*`.
struct NamePattern {
    private let app: String?
    private let glob: String

    init(_ text: String) {
        if let colon = text.lastIndex(of: ":"), !text[..<colon].isEmpty, !text[text.index(after: colon)...].contains("/") {
            app = String(text[..<colon])
            glob = String(text[text.index(after: colon)...])
        } else {
            app = nil
            glob = text
        }
    }

    func matches(_ process: SupervisedProcess) -> Bool {
        if let app {
            let member = process.kind == .app ? process.name == app : process.definition.extensionSpec?.app == app
            guard member else { return false }
        }
        return fnmatch(glob, process.name, 0) == 0
    }
}

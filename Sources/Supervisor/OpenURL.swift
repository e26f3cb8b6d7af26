import WireProtocol

/// `openURL` (DESIGN §5): the app whose `url_schemes` has the URL's scheme opens it.
extension Daemon {
    /// Routes `url`, from an extension, a host's `open` or `supervisorctl open`; returns the
    /// app that took it. Every connected host and the app itself hear of it, no other app; an
    /// app that is not running is launched with the URL as its last argument. With
    /// `allowedApp`, a URL of another app's scheme is refused.
    @discardableResult
    func open(_ url: String, from source: String, onlyIn allowedApp: String? = nil) throws(OpenURLError) -> String {
        guard url.utf8.count <= OpenURLError.maxURLBytes else { throw .tooLong(url.utf8.count) }
        guard let scheme = URLScheme(of: url) else { throw .notAURL(url) }
        guard let app = configuration.apps.first(where: { $0.urlSchemes.contains(scheme) }),
              let process = registry[app.id] else { throw .noApp(scheme: scheme) }
        if let allowedApp, app.id != allowedApp { throw .otherApp(scheme: scheme, owner: app.id, allowed: allowedApp) }
        let launched = !process.isAlive
        if launched {
            do {
                try supervisor.start(process, extraArguments: [url])
            } catch {
                throw .launchFailed(app: app.id, reason: error.description)
            }
        }
        // A running app hears it on host.sock (queued while it connects); the hosts too.
        hosts?.openURL(url, app: app.id, launched: launched)
        events.record(.launch, app.id, reason: "openURL", "\(source) opened \(url)")
        return app.id
    }
}

/// The lowercased scheme of a URL (`weather` of `Weather://today`), if it has a valid one.
func URLScheme(of url: String) -> String? {
    guard let colon = url.firstIndex(of: ":") else { return nil }
    let scheme = url[..<colon]
    guard let first = scheme.first, first.isASCII, first.isLetter,
          scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else { return nil }
    return scheme.lowercased()
}

/// Why a URL could not be opened.
enum OpenURLError: Error, CustomStringConvertible {
    /// The longest URL opened (UTF-8 bytes): it becomes an app's argument, an event and a
    /// message to every host.
    static let maxURLBytes = 8192

    case tooLong(Int)
    case notAURL(String)
    case noApp(scheme: String)
    case otherApp(scheme: String, owner: String, allowed: String)
    case launchFailed(app: String, reason: String)

    var description: String {
        switch self {
        case .tooLong(let length): "the URL is \(length) bytes long, over the limit of \(Self.maxURLBytes)"
        case .notAURL(let url): "'\(url)' is not a URL (expected scheme:rest, e.g. weather://today)"
        case .noApp(let scheme): "no app handles the URL scheme '\(scheme)'"
        case .otherApp(let scheme, let owner, let allowed):
            "the URL scheme '\(scheme)' belongs to app \(owner), not to \(allowed), whose extension it came from"
        case .launchFailed(let app, let reason): "app \(app) could not be launched: \(reason)"
        }
    }
}

import WireProtocol

/// `openURL` (DESIGN §5): the app whose `url_schemes` has the URL's scheme opens it.
extension Daemon {
    /// Routes `url`, from an extension or `supervisorctl open`; returns the app that
    /// took it. Every connected host hears of it (an app connected to `host.sock`
    /// among them); an app that is not running is launched with the URL as its last argument.
    @discardableResult
    func open(_ url: String, from source: String) throws(OpenURLError) -> String {
        guard let scheme = URLScheme(of: url) else { throw .notAURL(url) }
        guard let app = configuration.apps.first(where: { $0.urlSchemes.contains(scheme) }),
              let process = registry[app.id] else { throw .noApp(scheme: scheme) }
        if !process.isAlive {
            do {
                try supervisor.start(process, extraArguments: [url])
            } catch {
                throw .launchFailed(app: app.id, reason: error.description)
            }
        }
        hosts?.broadcast(.openURL(.init(url: url, app: app.id)))
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
    case notAURL(String)
    case noApp(scheme: String)
    case launchFailed(app: String, reason: String)

    var description: String {
        switch self {
        case .notAURL(let url): "'\(url)' is not a URL (expected scheme:rest, e.g. weather://today)"
        case .noApp(let scheme): "no app handles the URL scheme '\(scheme)'"
        case .launchFailed(let app, let reason): "app \(app) could not be launched: \(reason)"
        }
    }
}

/// The lowercased scheme of a URL (`weather` of `Weather://today`), if it has a valid one.
package func URLScheme(of url: String) -> String? {
    guard let colon = url.firstIndex(of: ":") else { return nil }
    let scheme = url[..<colon]
    guard let first = scheme.first, first.isASCII, first.isLetter,
        scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else { return nil }
    return scheme.lowercased()
}

/// Why a URL could not be opened.
package enum OpenURLError: Error, CustomStringConvertible {
    /// The longest URL opened (UTF-8 bytes): it becomes an app's argument, an event and a
    /// message to every host.
    package static let maxURLBytes = 8192

    case tooLong(Int)
    case notAURL(String)
    case noApp(scheme: String)
    case otherApp(scheme: String, owner: String, allowed: String)
    case launchFailed(app: String, reason: String)

    package var description: String {
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

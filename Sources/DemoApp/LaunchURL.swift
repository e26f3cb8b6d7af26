/// The URL the daemon appends to the app's command line when it launches the app for
/// `openURL`.
enum LaunchURL {
    /// The last argument when it is a URL (`scheme:rest`, the scheme as RFC 3986 §3.1
    /// allows); arguments from the app's own config are not taken for one.
    static func from(arguments: [String]) -> String? {
        guard arguments.count > 1, let last = arguments.last, let colon = last.firstIndex(of: ":") else { return nil }
        let scheme = last[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return last
    }
}

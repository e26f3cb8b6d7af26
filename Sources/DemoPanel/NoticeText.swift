import HostProtocol

/// How the panel shows what the supervisor tells it: one readable line per message.
enum NoticeText {
    /// `07:30:05 com.example.demo.widget: newData, version 1, age 0ms, fresh | count=42 text="hi"`;
    /// a push to the subscription says `(pushed)` after the extension.
    static func snapshot(_ snapshot: SupervisorToHost.Snapshot) -> String {
        let origin = snapshot.id == nil ? " (pushed)" : ""
        var freshness = snapshot.stale ? "stale" : "fresh"
        if let error = snapshot.error { freshness += " (\(error))" }
        let status = [snapshot.result.rawValue, "version \(snapshot.version)", "age \(age(snapshot.ageMs))", freshness]
        return "\(TimeOfDay.now()) \(snapshot.extensionID)\(origin): \(status.joined(separator: ", ")) | \(content(snapshot.snapshot))"
    }

    /// `07:30:05 extension com.example.demo.widget (widget of com.example.demo): enabled`
    static func listing(_ info: SupervisorToHost.ExtensionInfo) -> String {
        var state = info.enabled ? "enabled" : "disabled"
        if !info.hasContent { state += ", no content" }
        return "\(TimeOfDay.now()) extension \(info.id) (\(info.point) of \(info.app)): \(state)"
    }

    /// `07:30:05 com.example.demo.widget terminated (idle)`
    static func terminated(_ notice: SupervisorToHost.ExtensionTerminated) -> String {
        "\(TimeOfDay.now()) \(notice.extensionID) terminated (\(notice.reason.rawValue))"
    }

    /// `07:30:05 com.example.demo.widget has no content`
    static func hasContent(_ notice: SupervisorToHost.HasContentChanged) -> String {
        "\(TimeOfDay.now()) \(notice.extensionID) \(notice.hasContent ? "has content again" : "has no content")"
    }

    /// `07:30:05 openURL demo://details opened by com.example.demo`
    static func openURL(_ notice: SupervisorToHost.OpenURL) -> String {
        "\(TimeOfDay.now()) openURL \(notice.url) opened by \(notice.app)"
    }

    /// `07:30:05 tap on demo.widget: open demo://details`
    static func tap(_ extensionID: String, _ link: String) -> String {
        "\(TimeOfDay.now()) tap on \(extensionID): open \(link)"
    }

    /// `07:30:05 open (request 5): done` or `…: refused: no app handles the URL scheme 'x'`
    static func openResult(_ result: SupervisorToHost.OpenResult) -> String {
        "\(TimeOfDay.now()) open (request \(result.id)): " + (result.success ? "done" : "refused: \(result.error ?? "no reason given")")
    }

    /// `07:30:05 error (request 4): unknown extension "x"`
    static func error(_ error: SupervisorToHost.RequestError) -> String {
        "\(TimeOfDay.now()) error\(error.id.map { " (request \($0))" } ?? ""): \(error.error)"
    }

    /// A snapshot object's fields as `key=value` in key order; any other JSON as it is.
    private static func content(_ snapshot: EncodedJSON?) -> String {
        guard let snapshot else { return "no snapshot yet" }
        guard let value = try? snapshot.decoded() else { return String(decoding: snapshot.bytes, as: UTF8.self) }
        switch value {
        case .null: return "no snapshot yet"
        case .object(let fields): return fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(render($0.value))" }.joined(separator: " ")
        default: return render(value)
        }
    }

    private static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let number): Int(exactly: number).map(String.init) ?? "\(number)"
        case .string(let text): "\"\(text)\""
        case .array(let elements): "[" + elements.map(render).joined(separator: ", ") + "]"
        case .object(let fields): "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \(render($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    /// `850ms`, `12s`, `3m5s`.
    private static func age(_ milliseconds: UInt64) -> String {
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        let seconds = milliseconds / 1000
        return seconds < 60 ? "\(seconds)s" : "\(seconds / 60)m\(seconds % 60)s"
    }
}

/// The page's files, compiled into the program (no CDN: it works offline, on a kiosk).
struct WebFiles {
    let type: String
    let bytes: [UInt8]
    /// The frame an HTML widget runs in gets a policy of its own.
    var isWidgetFrame = false

    static func file(at path: String) -> WebFiles? {
        switch path {
        case "/", "/index.html": WebFiles(type: html, bytes: todayPage)
        case "/system": WebFiles(type: html, bytes: systemPage)
        case "/frame": WebFiles(type: html, bytes: PackageResources.frame_html, isWidgetFrame: true)
        case "/today.css": WebFiles(type: "text/css; charset=utf-8", bytes: PackageResources.today_css)
        case "/today.js": WebFiles(type: script, bytes: PackageResources.today_js)
        case "/cards.js": WebFiles(type: script, bytes: PackageResources.cards_js)
        case "/template.js": WebFiles(type: script, bytes: PackageResources.template_js)
        case "/system.js": WebFiles(type: script, bytes: PackageResources.system_js)
        case "/gallery.js": WebFiles(type: script, bytes: PackageResources.gallery_js)
        default: nil
        }
    }

    private static let todayPage = page(title: "Today", script: "/today.js", body: PackageResources.index_body_html)
    private static let systemPage = page(title: "System", script: "/system.js", body: PackageResources.system_body_html)

    /// A page of the view: the `<head>` every page shares, then its own body (web/*-body.html).
    private static func page(title: String, script: String, body: [UInt8]) -> [UInt8] {
        let head = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(title)</title>
            <link rel="stylesheet" href="/today.css">
            <script type="module" src="\(script)"></script>
            </head>

            """
        return Array(head.utf8) + body
    }

    private static let html = "text/html; charset=utf-8"
    private static let script = "text/javascript; charset=utf-8"

    /// The page runs only its own scripts, loads images from itself and `data:`, and frames
    /// only `/frame` (whose navigations it thereby confines too); the widget frame runs its
    /// inline scripts and reaches nothing, the network included.
    static func securityHeaders(for file: WebFiles, host: String) -> [(String, String)] {
        let policy =
            file.isWidgetFrame
            ? "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
            : "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                + "frame-src http://\(host.filter { $0.isASCII && $0 != ";" && $0 != " " })/frame; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        return [
            ("Content-Security-Policy", policy), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
            ("Cache-Control", "no-cache"),
        ]
    }
}

import Hosts
import WireProtocol

/// `openURL` (DESIGN §5): the app whose `url_schemes` has the URL's scheme opens it.
extension Daemon {
    /// Routes `url`, from an extension, a host's `open` or `supervisorctl open`; returns the
    /// app that took it. Every connected host and the app itself hear of it, no other app; an
    /// app that is not running is launched with the URL as its last argument. With
    /// `allowedApp`, a URL of another app's scheme is refused.
    @discardableResult
    package func open(_ url: String, from source: String, onlyIn allowedApp: String? = nil) throws(OpenURLError) -> String {
        guard url.utf8.count <= OpenURLError.maxURLBytes else { throw .tooLong(url.utf8.count) }
        guard let scheme = URLScheme(of: url) else { throw .notAURL(url) }
        guard let app = configuration.apps.first(where: { $0.urlSchemes.contains(scheme) }),
            let process = registry[app.id]
        else { throw .noApp(scheme: scheme) }
        if let allowedApp, app.id != allowedApp { throw .otherApp(scheme: scheme, owner: app.id, allowed: allowedApp) }
        let launched = !process.isAlive && !supervisor.isLaunching(process)
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

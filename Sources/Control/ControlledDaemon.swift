import ControlProtocol
import ExtensiondConfig
import Hosts

/// What the control commands ask of the daemon itself: its configuration, which it alone
/// reads and applies, and the routing of URLs to apps.
package protocol ControlledDaemon: AnyObject {
    var configuration: Configuration { get }
    /// One line for `systemctl status`.
    var summary: String { get }
    /// Reads the config file without applying it.
    func readConfiguration() throws(ConfigurationErrors) -> Configuration
    /// Rereads the config and applies it (`reload`, or `update` with `restartingChanged`).
    func reload(restartingChanged: Bool) throws(ConfigurationErrors) -> ConfigChanges
    /// Calls `body` once the state a reload or a purge changed (`apps.json`, `identities.json`,
    /// removed apps' tags) is on disk, or with why `apps.json` is not (kept, tried again).
    func whenStateRecorded(then body: @escaping (String?) -> Void)
    /// Purges what the removed app `app` left (`supervisorctl purge`); `nil` when done,
    /// otherwise why not.
    func purgeRemovedApp(_ app: String) -> String?
    /// Routes `url` to the app of its scheme; returns that app.
    func open(_ url: String, from source: String, onlyIn allowedApp: String?) throws(OpenURLError) -> String
}

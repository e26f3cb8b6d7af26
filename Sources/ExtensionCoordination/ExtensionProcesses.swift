import ExtensiondPolicy
import WireProtocol

/// What the ``ExtensionCoordinator`` needs of extension processes, by extension id: the
/// daemon's supervisor (``SupervisedExtensions``), or a test's simulation. The answers
/// come back through the coordinator's `launched`, `received` and `runEnded`.
package protocol ExtensionProcesses: AnyObject {
    /// Where the extension's current run is; `.notRunning` also for an unknown id.
    func phase(of id: String) -> ExtensionPhase
    /// Launches the extension (it must not be running). The supervisor throws its
    /// `LaunchError`, whose description the coordinator records. It may defer the launch
    /// until there is memory for it, and it spawns beside the loop (its phase is
    /// `.starting` meanwhile): `launched` follows, or `launchFailed` says why it did not happen.
    func launch(_ id: String) throws
    /// The run sent `ready`: it is idle from now on. Returns how long the launch took.
    func markReady(_ id: String) -> Duration?
    /// The run serves a request (`true`) or waits for one (`false`), as `status` shows.
    func markServing(_ id: String, _ serving: Bool)
    /// Sends `message` to the run on its channel (dropped when there is none).
    func send(_ message: SupervisorToExtension, to id: String)
    /// Delivers what the run has already sent and the loop has not read yet, now: a loop
    /// kept busy past a deadline (200 launches on a loaded machine) must not blame the
    /// run for an answer waiting in its socket.
    func readPending(_ id: String)
    /// Freezes an idle run until ``resume(_:)`` (nothing happens where it cannot be frozen);
    /// while ``isMemoryShort`` it ends the run instead (reason `trim`).
    func suspend(_ id: String)
    /// Whether the tree's last reading was at or past `pressure.warn`.
    var isMemoryShort: Bool { get }
    /// Thaws a suspended run; nothing happens to one that is not suspended.
    func resume(_ id: String)
    /// Asks the run to end (`terminate`, then SIGKILL after the grace period).
    func stop(_ id: String, reason: StopReason)
    /// Kills the run's whole cgroup now, recording `reason` and `message`; nothing more
    /// it sends is delivered.
    func kill(_ id: String, reason: StopReason, message: String)
}

/// The life of one extension run, as the coordinator sees it.
package enum ExtensionPhase: Equatable {
    case notRunning
    /// Launched; `ready` has not come yet.
    case starting
    /// Ready, and able to take a request on its channel.
    case ready
    /// Being stopped: takes no new request; a new run serves what waits.
    case stopping
}

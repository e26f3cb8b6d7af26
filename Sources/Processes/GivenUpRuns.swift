import DaemonSupport
import EventLoop
import ExtensiondPolicy
import Glibc
import LinuxProcess
import Sockets

/// The main processes of runs given up (not reaped within `exitBound` of SIGKILL), kept
/// watched until they exit and are reaped, so that a process stuck for a while, or a loop
/// held past the bound, leaves no zombie behind.
final class GivenUpRuns {
    private let loop: EventLoop
    private let events: EventLog
    private var watched: [pid_t: (process: SpawnedProcess, watch: EventSource)] = [:]

    init(loop: EventLoop, events: EventLog) {
        self.loop = loop
        self.events = events
    }

    /// How many are still waited for.
    var count: Int { watched.count }

    /// Reaps `process`, of the supervised process `name`, when it exits, and says so.
    func reapWhenItExits(_ process: SpawnedProcess, name: String) {
        let pid = process.pid
        do throws(SystemError) {
            let watch = try loop.addChildExit(pidfd: process.descriptor.fileDescriptor) { [unowned self] exit in
                self.watched[pid] = nil
                self.events.record(.exit, name, reason: StopReason.exited.rawValue, "pid \(pid), given up, \(exit.description) and was reaped")
            }
            watched[pid] = (process, watch)
        } catch {
            events.record(.error, name, "pid \(pid), given up, cannot be watched to be reaped: \(error)")
        }
    }
}

extension ChildExit {
    /// The exit a non-blocking reap found.
    init(_ status: ExitStatus) {
        switch status {
        case .exited(let code): self.init(code: Int32(CLD_EXITED), status: code)
        case let .killed(signal, dumpedCore): self.init(code: Int32(dumpedCore ? CLD_DUMPED : CLD_KILLED), status: signal)
        }
    }
}

import ControlProtocol
import Glibc

/// supervisorctl's exit codes, those of supervisord's supervisorctl (LSB init and status
/// codes); the table is in docs/CLI.md.
enum CLIExitCode: Int32 {
    case success = 0
    /// The command failed (`ERROR (already started)`, an error from the daemon).
    case failed = 1
    /// Bad usage: an unknown command or option, a value out of range.
    case usage = 2
    /// `status`/`pid`: a process named (or, with no names, one that autostarts) is not running.
    case notRunning = 3
    /// `status`: a name matches nothing; any command: the daemon refused it (permissions).
    case unknownOrRefused = 4
    /// The daemon is not running: nothing serves the control socket.
    case unreachable = 7
}

/// The daemon answered that the command failed, or the answer means a non-zero exit.
struct CommandFailed: Error {
    var message: String
    var status: CLIExitCode = .failed
    /// The daemon's error code, when the daemon said no.
    var code: ControlErrorCode?
}

extension ControlErrorCode {
    /// The exit status of a command that failed with this code (`status` maps
    /// `unknownName` to 4 itself).
    var exitStatus: CLIExitCode {
        self == .refused ? .unknownOrRefused : .failed
    }
}

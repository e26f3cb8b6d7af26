#if canImport(Glibc)
import Glibc
#endif

/// Why a process could not be started: the step that failed, what it acted
/// on, and the reason, e.g. `exec /opt/x: No such file or directory`.
public struct SpawnError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The step of a spawn, in the order they run.
    public enum Step: String, Sendable {
        case resolveExecutable = "find executable"
        case resolveUser = "look up user"
        case resolveGroup = "look up group"
        case invalidArgument = "pass"
        case openCgroup = "open cgroup"
        case reportPipe = "create report pipe"
        case descriptorSlots = "place the descriptors of"
        case clone = "clone"
        case processDescriptor = "open pidfd of"
        case resetSignals = "reset signals of"
        case newSession = "setsid in"
        case parentDeathSignal = "set parent-death signal of"
        case joinCgroup = "join cgroup"
        case oomScoreAdjustment = "set oom_score_adj"
        case supplementaryGroups = "setgroups"
        case groupID = "setgid"
        case userID = "setuid"
        case workingDirectory = "chdir"
        case standardIO = "set up stdin/stdout/stderr of"
        case extensionSocket = "place the extension socket at fd 3 of"
        case closeDescriptors = "close inherited fds of"
        case landlockRuleset = "create the Landlock ruleset"
        case landlockRule = "allow in the Landlock ruleset"
        case seccompProgram = "build the seccomp filter"
        case isolateNetwork = "isolate the network of"
        case noNewPrivileges = "set no_new_privs of"
        case landlock = "enter the Landlock sandbox in"
        case seccomp = "install the seccomp filter in"
        case exec = "exec"
    }

    /// The step that failed.
    public let step: Step
    /// What the step acted on: a path, a name, a value.
    public let subject: String
    /// The `errno` of the failed system call, or 0 when no system call failed.
    public let errno: Int32
    /// Why it failed, in words.
    public let reason: String

    /// A failed system call; the reason is `strerror(errno)`.
    init(_ step: Step, _ subject: String, errno: Int32) {
        self.step = step
        self.subject = subject
        self.errno = errno
        self.reason = String(cString: strerror(errno))
    }

    /// A failure found before any system call.
    init(_ step: Step, _ subject: String, reason: String) {
        self.step = step
        self.subject = subject
        self.errno = 0
        self.reason = reason
    }

    /// `<step> <subject>: <reason>`.
    public var description: String { "\(step.rawValue) \(subject): \(reason)" }
}

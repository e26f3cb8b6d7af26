/// How a process ended.
public enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
    /// It called `exit` with this code.
    case exited(code: Int32)
    /// A signal ended it (`dumpedCore` when it left a core dump).
    case killed(signal: Int32, dumpedCore: Bool)

    /// `exited 0`, `killed by signal 9`.
    public var description: String {
        switch self {
        case .exited(let code): "exited \(code)"
        case .killed(let signal, let core): "killed by signal \(signal)\(core ? " (core dumped)" : "")"
        }
    }
}

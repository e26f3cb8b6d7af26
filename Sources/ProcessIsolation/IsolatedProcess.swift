import ControlProtocol
import DaemonSupport

/// What isolation reads of a process to launch (a ``SupervisedProcess``).
package protocol IsolatedProcess: AnyObject {
    var name: String { get }
    var kind: ProcessKind { get }
    var definition: ProcessDefinition { get }
}

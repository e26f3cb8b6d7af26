#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlProtocol
import WireProtocol

/// `supervisorctl open` and `supervisorctl defaults`.
extension Daemon {
    func handleGroupCommand(_ request: ControlRequest, _ session: ControlSession) {
        switch request.command {
        case .open:
            guard request.names.count == 1 else { return session.reply(.failure("open takes exactly one URL")) }
            do {
                let app = try open(request.names[0], from: "supervisorctl")
                session.reply(ControlResponse(message: "opened \(request.names[0]) with \(app)"))
            } catch {
                session.reply(.failure(error.description))
            }
        default:
            session.reply(defaults(request.names))
        }
    }

    /// `defaults GROUP get|set|remove|list [KEY] [VALUE]`, VALUE being JSON text.
    private func defaults(_ arguments: [String]) -> ControlResponse {
        guard arguments.count >= 2 else { return .failure("defaults needs a group and an operation") }
        let group = arguments[0]
        guard configuration.apps.contains(where: { $0.groups.contains(group) }) else {
            return .failure("no app has the group \"\(group)\"")
        }
        guard let operation = DefaultsOperation(rawValue: arguments[1]) else {
            return .failure("'\(arguments[1])' is not one of get, set, remove, list")
        }
        let key = arguments.count > 2 ? arguments[2] : nil
        var value: JSONValue?
        if arguments.count > 3 {
            guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(arguments[3].utf8)) else {
                return .failure("the value '\(arguments[3])' is not JSON")
            }
            value = parsed
        }
        do {
            let result = try extensions.groups.perform(operation, group: group, key: key, value: value)
            return ControlResponse(message: String(decoding: result.encoded().bytes, as: UTF8.self))
        } catch {
            return .failure(error.description)
        }
    }
}

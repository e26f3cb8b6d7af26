import ControlProtocol
import Processes
import WireProtocol

/// `supervisorctl open` and `supervisorctl defaults`.
extension ControlCommands {
    func handleGroupCommand(_ request: ControlRequest, _ session: ControlSession) {
        switch request {
        case .open(let request):
            do {
                let app = try open(request.url, from: "supervisorctl")
                session.reply(ControlResponse(message: "opened \(request.url) with \(app)"))
            } catch {
                session.reply(.failure(error.description))
            }
        case .defaults(let request):
            defaults(request, reply: session.reply)
        default:
            session.reply(.failure("internal: '\(request.command.rawValue)' is not a group command"))
        }
    }

    /// Why the shared defaults of the groups `process` uses (its app's, or its own for an
    /// app) could not be saved, for its `status` line; nil when they could.
    func defaultsStorageError(of process: SupervisedProcess) -> String? {
        // Almost always so: then no search of the config per line (200 lines, 200 extensions).
        guard !extensions.groups.storageErrors.isEmpty else { return nil }
        let app = process.kind == .extension ? configuration.extensions.first { $0.id == process.name }?.app : process.name
        guard let groups = configuration.apps.first(where: { $0.id == app })?.groups else { return nil }
        let errors = groups.compactMap { extensions.groups.storageErrors[$0] }
        return errors.isEmpty ? nil : errors.joined(separator: "; ")
    }

    /// `defaults GROUP get|set|remove|list [KEY] [VALUE]`.
    private func defaults(_ request: DefaultsRequest, reply: @escaping (ControlResponse) -> Void) {
        guard configuration.apps.contains(where: { $0.groups.contains(request.group) }) else {
            return reply(.failure("no app has the group \"\(request.group)\""))
        }
        extensions.groups.perform(request.operation, group: request.group, key: request.key, value: request.value, by: .control) { outcome in
            switch outcome {
            case .success(let value): reply(ControlResponse(message: String(decoding: value.encoded().bytes, as: UTF8.self)))
            case .failure(let error): reply(.failure(error.description))
            }
        }
    }
}

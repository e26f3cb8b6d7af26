import ControlProtocol
import EventLoop
import WireProtocol

/// `supervisorctl` commands that act as a host would: pull, refresh, perform,
/// enable and disable.
extension ControlCommands {
    func handleExtensionCommand(_ request: ControlRequest, _ session: ControlSession) {
        do {
            switch request {
            case .pull(let request):
                let size = Size(width: request.width ?? 320, height: request.height ?? 160)
                let started = MonotonicInstant.current()
                try extensions.pull(request.name, mode: request.mode, maxSize: size) { outcome in
                    let message = outcome.snapshot(id: nil, extensionID: request.name)
                    let report = PullReport(
                        extensionID: request.name, result: message.result.rawValue, delivery: outcome.delivery.rawValue,
                        snapshot: try? message.snapshot?.decoded(), version: message.version, ageMs: message.ageMs,
                        stale: message.stale, error: message.error,
                        latencyUs: UInt64(MonotonicInstant.current().since(started).wholeMicroseconds))
                    session.reply(ControlResponse(pull: report))
                }
            case .refresh(let selection):
                try extensions.refresh(selection.names)
                session.reply(ControlResponse(message: "refresh requested: \(selection.names.joined(separator: ", "))"))
            case .enable(let selection), .disable(let selection):
                let enabled = request.command == .enable
                let message = "\(enabled ? "enabled" : "disabled") \(selection.names.joined(separator: ", "))"
                // Answered once enabled.json holds the choice; in effect already.
                try extensions.setEnabled(enabled, for: selection.names) { failure in
                    session.reply(ControlResponse(message: message + Self.diskNote(failure)))
                }
            case .perform(let request):
                try extensions.perform(request.name, items: request.items) { outcome in
                    switch outcome {
                    case .completed(let items):
                        session.reply(ControlResponse(lines: items.map(\.displayText), done: true))
                    case .failed(let reason):
                        session.reply(.failure(reason))
                    }
                }
            default:
                session.reply(.failure("internal: '\(request.command.rawValue)' is not an extension command"))
            }
        } catch {
            session.reply(.failure(error.description))
        }
    }
}

extension Item {
    /// `type=path` or `type=<json>`.
    var displayText: String {
        switch content {
        case .path(let path): "\(type)=\(path)"
        case .value(let value): "\(type)=\(String(decoding: value.encoded().bytes, as: UTF8.self))"
        }
    }
}

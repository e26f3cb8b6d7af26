import ControlProtocol
import EventLoop
import WireProtocol

/// `supervisorctl` commands that act as a host would: pull, refresh, perform,
/// enable and disable.
extension Daemon {
    func handleExtensionCommand(_ request: ControlRequest, _ session: ControlSession) {
        do {
            switch request.command {
            case .pull:
                guard request.names.count == 1 else { return session.reply(.failure("pull takes exactly one extension")) }
                let modeName = request.options["mode"] ?? "compact"
                guard let mode = DisplayMode(rawValue: modeName) else {
                    return session.reply(.failure("mode '\(modeName)' is not one of compact, expanded"))
                }
                var size = Size(width: 320, height: 160)
                for (option, dimension) in [("width", \Size.width), ("height", \Size.height)] {
                    guard let text = request.options[option] else { continue }
                    guard let pixels = Int(text), pixels > 0 else {
                        return session.reply(.failure("\(option) '\(text)' is not a positive number of pixels"))
                    }
                    size[keyPath: dimension] = pixels
                }
                let id = request.names[0]
                let started = MonotonicInstant.current()
                try extensions.pull(id, mode: mode, maxSize: size) { outcome in
                    let message = outcome.snapshot(id: nil, extensionID: id)
                    let report = PullReport(
                        extensionID: id, result: message.result.rawValue, delivery: outcome.delivery.rawValue,
                        snapshot: try? message.snapshot?.decoded(), version: message.version, ageMs: message.ageMs,
                        stale: message.stale, error: message.error,
                        latencyUs: UInt64(MonotonicInstant.current().since(started).wholeMicroseconds))
                    session.reply(ControlResponse(pull: report))
                }
            case .refresh:
                guard !request.names.isEmpty else { return session.reply(.failure("refresh needs an extension")) }
                try extensions.refresh(request.names)
                session.reply(ControlResponse(message: "refresh requested: \(request.names.joined(separator: ", "))"))
            case .enable, .disable:
                guard !request.names.isEmpty else { return session.reply(.failure("\(request.command.rawValue) needs an extension")) }
                let enabled = request.command == .enable
                try extensions.setEnabled(enabled, for: request.names)
                session.reply(ControlResponse(message: "\(enabled ? "enabled" : "disabled") \(request.names.joined(separator: ", "))"))
            case .perform:
                guard let id = request.names.first else { return session.reply(.failure("perform needs an extension and items")) }
                var items: [Item] = []
                for argument in request.names.dropFirst() {
                    guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                        return session.reply(.failure("item '\(argument)' is not of the form type=path"))
                    }
                    items.append(Item(type: String(argument[..<equals]), path: String(argument[argument.index(after: equals)...])))
                }
                try extensions.perform(id, items: items) { outcome in
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

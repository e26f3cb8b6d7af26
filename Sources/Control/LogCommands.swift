import ControlProtocol
import Output
import Processes

/// `tail`, `events` and `maintail`: the last lines of a log, then (following) each new one.
extension ControlCommands {
    func handleLogCommand(_ request: ControlRequest, _ session: ControlSession) {
        switch request {
        case .tail(let request):
            guard let process = registry[request.name] else {
                return session.reply(.failure(UnknownNameError(name: request.name).description, code: .unknownName))
            }
            let streams = request.stream.map { [StandardStream($0)] } ?? StandardStream.allCases
            let last = process.output.lastLines(request.lines, of: streams).map(\.text)
            guard request.follow else { return session.reply(ControlResponse(lines: last, done: true)) }
            session.stream(ControlResponse(lines: last))
            let token = session
            process.output.follow(token, streams) { line in session.stream(ControlResponse(lines: [line.text])) }
            session.onEnd = { [unowned process] in process.output.unfollow(token) }
        case .events(let request):
            guard request.follow else { return session.reply(ControlResponse(events: events.recent(request.lines), done: true)) }
            session.stream(ControlResponse(events: events.recent(request.lines)))
            let token = session
            events.follow(token) { event in session.stream(ControlResponse(events: [event])) }
            session.onEnd = { [unowned self] in self.events.unfollow(token) }
        case .maintail(let request):
            guard request.follow else { return session.reply(ControlResponse(lines: logRing.recent(request.lines), done: true)) }
            session.stream(ControlResponse(lines: logRing.recent(request.lines)))
            let token = session
            // The ring calls back on the thread that logged: the loop's, as the daemon logs nowhere else.
            nonisolated(unsafe) let follower = session
            nonisolated(unsafe) let loop = loop
            logRing.follow(token) { line in
                loop.assertInEventLoop()
                follower.stream(ControlResponse(lines: [line]))
            }
            session.onEnd = { [unowned self] in self.logRing.unfollow(token) }
        default:
            session.reply(.failure("internal: '\(request.command.rawValue)' is not a log command"))
        }
    }
}

extension StandardStream {
    /// The stream a control request names.
    init(_ stream: OutputStream) {
        switch stream {
        case .stdout: self = .stdout
        case .stderr: self = .stderr
        }
    }
}

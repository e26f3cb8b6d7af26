/// Turns the requests of one extension point into calls of the author's type.
protocol RequestHandler {
    /// The answer to `update` or `begin`, or `nil` to send none.
    mutating func answer(_ request: SupervisorToExtension, context: ExtensionContext) -> ExtensionToSupervisor?
    mutating func memoryWarning(_ warning: SupervisorToExtension.MemoryWarning, context: ExtensionContext)
}

/// Answers `update` with the widget's result; `begin` completes with no items.
struct WidgetHandler<W: Widget>: RequestHandler {
    var widget: W

    mutating func answer(_ request: SupervisorToExtension, context: ExtensionContext) -> ExtensionToSupervisor? {
        switch request {
        case .update(let update):
            context.enter(instance: update.instance, params: update.params, environment: update.environment)
            context.displayModeChanged = update.modeChanged
            defer { context.leave() }
            let result = widget.update(
                mode: update.mode, maxSize: update.maxSize, reason: update.reason, context: context)
            var message = Self.message(for: result, id: update.id)
            message.largestMode = context.largestAvailableMode
            return .result(message)
        case .execute(let execute):
            context.enter(instance: execute.instance, params: execute.params, environment: execute.environment)
            defer { context.leave() }
            let result = widget.execute(
                verb: execute.verb, data: execute.data, mode: execute.mode, maxSize: execute.maxSize, context: context)
            var message = Self.message(for: result, id: execute.id)
            message.largestMode = context.largestAvailableMode
            return .result(message)
        case .begin(let begin):
            return .complete(.init(id: begin.id, items: []))
        default:
            return nil
        }
    }

    mutating func memoryWarning(_ warning: SupervisorToExtension.MemoryWarning, context: ExtensionContext) {
        widget.memoryWarning(current: warning.current, high: warning.high, context: context)
    }

    static func message(for result: UpdateResult<W.Snapshot>, id: RequestID) -> ExtensionToSupervisor.Result {
        switch result {
        case .newData(let snapshot, let reload, let preferredSize, let timeline):
            // Checked here: the supervisor would end the run for a timeline it refuses.
            guard timeline.count <= TimelineEntry.maxCount else {
                return .init(id: id, result: .failed, error: "timeline has \(timeline.count) entries, more than \(TimelineEntry.maxCount)")
            }
            guard zip(timeline, timeline.dropFirst()).allSatisfy({ $0.date < $1.date }) else {
                return .init(id: id, result: .failed, error: "timeline dates must ascend")
            }
            do {
                let entries = try timeline.map { TimelineEntry(date: $0.date, snapshot: try JSONValue(encoding: $0.snapshot)) }
                return .init(
                    id: id, result: .newData, snapshot: try JSONValue(encoding: snapshot), reload: reload,
                    preferredSize: preferredSize, timeline: entries.isEmpty ? nil : entries)
            } catch {
                return .init(id: id, result: .failed, error: "snapshot cannot be encoded as JSON: \(error)")
            }
        case .noData:
            return .init(id: id, result: .noData)
        case .failed(let message):
            return .init(id: id, result: .failed, error: message)
        }
    }
}

/// Answers `begin` with the action's items; `update` fails, as actions have no content.
struct ActionHandler<A: Action>: RequestHandler {
    var action: A

    mutating func answer(_ request: SupervisorToExtension, context: ExtensionContext) -> ExtensionToSupervisor? {
        switch request {
        case .begin(let begin):
            do {
                return .complete(.init(id: begin.id, items: try action.perform(items: begin.items, context: context)))
            } catch {
                return .cancel(.init(id: begin.id, error: Self.bounded("\(error)")))
            }
        case .update(let update):
            return .result(.init(id: update.id, result: .failed, error: "an action extension has no content"))
        case .execute(let execute):
            return .result(.init(id: execute.id, result: .failed, error: "an action extension has no content"))
        default:
            return nil
        }
    }

    /// `text` cut to the bound of `cancel`'s `error`, on a character boundary.
    static func bounded(_ text: String) -> String {
        var bytes = 0
        let end = text.firstIndex { character in
            bytes += character.utf8.count
            return bytes > ExtensionToSupervisor.Cancel.maxErrorLength
        }
        return String(text[..<(end ?? text.endIndex)])
    }

    mutating func memoryWarning(_ warning: SupervisorToExtension.MemoryWarning, context: ExtensionContext) {
        action.memoryWarning(current: warning.current, high: warning.high, context: context)
    }
}

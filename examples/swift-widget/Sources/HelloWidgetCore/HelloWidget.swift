import ExtensionSDK

/// Counts its updates in the app group's shared defaults and shows the count.
public struct HelloWidget: Widget {
    public init() {}

    public mutating func update(mode: DisplayMode, maxSize: Size, reason: UpdateReason, context: ExtensionContext)
        -> UpdateResult<[String: String]>
    {
        let store = context.defaults(group: "group.hello")
        var count = 0.0
        if case .number(let stored)?? = try? store.get("count") { count = stored }
        count += 1
        do {
            try store.set("count", to: .number(count))
        } catch let error where error.code == .rejected {
            return .failed("the app group refused the count: \(error.reason ?? "")")
        } catch {
            return .failed("the shared count could not be saved: \(error)")
        }
        return .newData(["text": "Hello from Swift, update #\(Int(count))"], reload: .atEnd)
    }
}

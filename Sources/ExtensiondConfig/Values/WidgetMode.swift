/// A display mode a widget declares it can be shown in (`modes`); the wire's `mode`.
public enum WidgetMode: String, Sendable, Hashable, CaseIterable {
    /// The small, always-visible form.
    case compact
    /// The larger form a host shows on request.
    case expanded
}

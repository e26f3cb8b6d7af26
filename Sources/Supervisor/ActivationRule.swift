import WireProtocol

/// An action extension's `activation` table: the most items of each type it accepts.
/// An empty rule accepts anything.
struct ActivationRule {
    let limits: [String: Int]

    init(_ limits: [String: Int]) { self.limits = limits }

    /// What is wrong with `items`, or nil when they match.
    func problem(with items: [Item]) -> String? {
        if items.isEmpty { return "no items" }
        guard !limits.isEmpty else { return nil }
        var counts: [String: Int] = [:]
        for item in items { counts[item.type, default: 0] += 1 }
        for (type, count) in counts.sorted(by: { $0.key < $1.key }) {
            guard let limit = limits[type] else {
                return "type \(type) is not accepted (accepted: \(limits.keys.sorted().joined(separator: ", ")))"
            }
            if count > limit { return "\(count) items of type \(type), at most \(limit) accepted" }
        }
        return nil
    }
}

import ExtensiondPolicy
import WireProtocol

/// An action extension's `activation` table: the most items of each type it accepts.
/// An item counts against the nearest type of its lineage that the table names
/// (`public.jpeg` against `public.image` when the table has no `public.jpeg`). An empty
/// rule accepts anything.
struct ActivationRule {
    let limits: [String: Int]
    let types: TypeHierarchy

    init(_ limits: [String: Int], types: TypeHierarchy) {
        self.limits = limits
        self.types = types
    }

    /// What is wrong with `items`, or nil when they match.
    func problem(with items: [Item]) -> String? {
        if items.isEmpty { return "no items" }
        guard !limits.isEmpty else { return nil }
        var counts: [String: Int] = [:]
        for item in items {
            guard let ruleType = types.lineage(of: item.type).first(where: { limits[$0] != nil }) else {
                return "type \(item.type) is not accepted (accepted: \(limits.keys.sorted().joined(separator: ", ")) and the types that conform to them)"
            }
            counts[ruleType, default: 0] += 1
        }
        for (type, count) in counts.sorted(by: { $0.key < $1.key }) where count > limits[type]! {
            return "\(count) items of type \(type), at most \(limits[type]!) accepted"
        }
        return nil
    }
}

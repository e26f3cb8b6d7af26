/// Numeric user and group ids for apps and app groups, taken from a configured range
/// and kept stable, like systemd's `DynamicUser=` (docs/SECURITY.md).
///
/// A name's first candidate comes from a fixed hash of the name, so an app usually gets
/// the same id even on a fresh state directory; collisions and ids the system already
/// uses move on to the next free id. Assignments are meant to be persisted and handed
/// back: an id, once given, is never given to another name and never changes.
public struct IdentityAllocator: Equatable, Sendable {
    /// The ids that may be handed out.
    public let range: ClosedRange<UInt32>
    /// Every name's id.
    public private(set) var assignments: [String: UInt32] = [:]
    private var used: Set<UInt32> = []

    /// An allocator over `range` that keeps `assignments` (read back from disk). An
    /// assignment outside the range, or one whose id another name already holds, is dropped
    /// (the name gets a new id).
    public init(range: ClosedRange<UInt32>, assignments: [String: UInt32] = [:]) {
        self.range = range
        for (name, id) in assignments.sorted(by: { $0.key < $1.key }) where range.contains(id) && !used.contains(id) {
            self.assignments[name] = id
            used.insert(id)
        }
    }

    /// The id of `name`: its assignment, or a new one not `taken` by the system (an existing
    /// user or group). `nil` when the range has no free id left.
    public mutating func id(for name: String, taken: (UInt32) -> Bool = { _ in false }) -> UInt32? {
        if let id = assignments[name] { return id }
        let size = UInt64(range.upperBound - range.lowerBound) + 1
        let start = Self.stableHash(name) % size
        for step in 0..<size {
            let candidate = range.lowerBound + UInt32((start + step) % size)
            guard !used.contains(candidate), !taken(candidate) else { continue }
            assignments[name] = candidate
            used.insert(candidate)
            return candidate
        }
        return nil
    }

    /// Gives `name`'s id to `newName` (which must have none): the id stays taken, under
    /// another name. Nothing happens when `name` has no id.
    public mutating func rename(_ name: String, to newName: String) {
        guard assignments[newName] == nil, let id = assignments.removeValue(forKey: name) else { return }
        assignments[newName] = id
    }

    /// Frees `name`'s id: another name may get it.
    public mutating func release(_ name: String) {
        if let id = assignments.removeValue(forKey: name) { used.remove(id) }
    }

    /// FNV-1a: the same on every run and machine (Swift's `Hasher` is seeded per process).
    static func stableHash(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}

import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// Per-app uids and per-group gids: unique, in range, stable across restarts.
@Suite struct IdentityAllocatorTests {
    private func names(_ count: Int, using random: inout SeededRandom) -> [String] {
        (0..<count).map { index in "app.\(index).\(random.next() % 1000)" }
    }

    @Test(arguments: 0..<200) func idsAreUniqueInRangeAndAvoidTakenOnes(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        let lower = UInt32(60_000 + random.next() % 1000)
        let range = lower...(lower + UInt32(random.next() % 64))
        let taken = Set((0..<8).map { _ in range.lowerBound + UInt32(random.next() % UInt64(range.count)) })
        var allocator = IdentityAllocator(range: range)
        let wanted = names(Int(random.next() % 80), using: &random)
        var given: [String: UInt32] = [:]
        for name in wanted {
            if let id = allocator.id(for: name, taken: { taken.contains($0) }) { given[name] = id }
        }
        let ids = Array(given.values)
        #expect(Set(ids).count == ids.count, "seed \(seed): an id given twice")
        #expect(ids.allSatisfy { range.contains($0) && !taken.contains($0) }, "seed \(seed)")
        // Every name got an id unless the free ids ran out.
        #expect(given.count == min(Set(wanted).count, range.count - taken.count), "seed \(seed)")
    }

    @Test(arguments: 0..<200) func persistedAssignmentsNeverChange(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        let range: ClosedRange<UInt32> = 61_000...61_099
        var first = IdentityAllocator(range: range)
        let earlier = names(30, using: &random)
        for name in earlier { _ = first.id(for: name) }
        // A restart: the saved assignments come back, more names arrive in another order.
        var second = IdentityAllocator(range: range, assignments: first.assignments)
        let later = (earlier + names(30, using: &random)).shuffled(using: &random)
        for name in later { _ = second.id(for: name) }
        for name in earlier {
            #expect(second.assignments[name] == first.assignments[name], "seed \(seed): \(name) changed id")
        }
        #expect(Set(second.assignments.values).count == second.assignments.count)
    }

    /// A renamed id stays taken under its new name; a released one may be given again.
    @Test func aRenamedIdStaysTakenAndAReleasedOneIsFree() {
        var allocator = IdentityAllocator(range: 10...10)
        #expect(allocator.id(for: "app:a") == 10)
        allocator.rename("app:a", to: "removed:app:a")
        #expect(allocator.id(for: "app:a") == nil, "the only id is still the removed app's")
        allocator.release("removed:app:a")
        #expect(allocator.id(for: "app:a") == 10)
        #expect(allocator.assignments == ["app:a": 10])
    }

    @Test func aNameGetsTheSameIdOnAFreshStateDirectory() {
        var one = IdentityAllocator(range: 61_000...61_999)
        var two = IdentityAllocator(range: 61_000...61_999)
        _ = two.id(for: "com.example.other")
        #expect(one.id(for: "com.example.weather") == two.id(for: "com.example.weather"))
    }

    @Test func damagedAssignmentsAreDropped() {
        let allocator = IdentityAllocator(range: 61_000...61_010, assignments: ["a": 61_001, "b": 61_001, "c": 5, "d": 61_002])
        #expect(allocator.assignments == ["a": 61_001, "d": 61_002])
    }

    @Test func aFullRangeGivesNoId() {
        var allocator = IdentityAllocator(range: 61_000...61_001)
        #expect(allocator.id(for: "a") != nil)
        #expect(allocator.id(for: "b") != nil)
        #expect(allocator.id(for: "c") == nil)
        #expect(allocator.id(for: "a") != nil)
    }
}

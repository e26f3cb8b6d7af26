import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

/// ``InstanceShare`` over random hosts: whatever connections and users do, none holds more
/// than its share, and a refusal always names a share that is used up.
@Suite struct InstanceSharePropertyTests {
    /// The daemon's bookkeeping in miniature: the made-up instances each connection uses.
    struct Model {
        var share: InstanceShare
        var users: [Int: Int] = [:]  // connection → user
        var uses: [Int: Set<Int>] = [:]  // connection → instances

        func userInstances(_ user: Int) -> Set<Int> {
            Set(uses.filter { users[$0.key] == user }.values.joined())
        }

        /// What the daemon does with a pull of `instance` by `connection`: admitted or not.
        mutating func use(_ instance: Int, by connection: Int, of user: Int) -> InstanceShare.Refusal? {
            users[connection] = user
            let own = uses[connection, default: []]
            if own.contains(instance) { return nil }
            let refusal = share.refusal(own: own.count, user: userInstances(user).count)
            if refusal == nil { uses[connection, default: []].insert(instance) }
            return refusal
        }
    }

    @Test(arguments: [
        InstanceShare.standard, InstanceShare(perConnection: 0, perUser: 0), InstanceShare(perConnection: 1, perUser: 1),
        InstanceShare(perConnection: 40, perUser: 8), InstanceShare(perConnection: .max, perUser: .max),
    ])
    func noConnectionOrUserHoldsMoreThanItsShare(share: InstanceShare) {
        for seed in 0..<60 as Range<UInt64> {
            var random = SeededRandom(seed: seed)
            var model = Model(share: share)
            for _ in 0..<300 {
                let connection = Int.random(in: 0..<12, using: &random)
                let user = model.users[connection] ?? Int.random(in: 0..<3, using: &random)
                if Int.random(in: 0..<20, using: &random) == 0 {
                    model.uses[connection] = nil  // it disconnects: its instances are freed
                    model.users[connection] = nil
                    continue
                }
                let ownBefore = model.uses[connection, default: []].count, userBefore = model.userInstances(user).count
                switch model.use(Int.random(in: 0..<300, using: &random), by: connection, of: user) {
                case .connection(let count): #expect(count == ownBefore && count >= share.perConnection, "seed \(seed)")
                case .user(let count): #expect(count == userBefore && count >= share.perUser, "seed \(seed)")
                case nil: break
                }
                for (held, instances) in model.uses {
                    #expect(instances.count <= share.perConnection, "seed \(seed) connection \(held)")
                }
                for someone in 0..<3 { #expect(model.userInstances(someone).count <= share.perUser, "seed \(seed) user \(someone)") }
            }
        }
    }

    @Test func theBoundsThemselves() {
        let share = InstanceShare.standard
        #expect(share.refusal(own: 0, user: 0) == nil)
        #expect(share.refusal(own: 15, user: 31) == nil)
        #expect(share.refusal(own: 16, user: 0) == .connection(16))
        #expect(share.refusal(own: 0, user: 32) == .user(32))
        #expect(share.refusal(own: .max, user: .max) == .connection(.max))
        // Two users together still leave a third one its own share of the 64.
        #expect(2 * share.perUser == 64 && share.perConnection * 2 == share.perUser)
    }
}

/// The coordinator's random number generator (any, so that tests can seed it) behind one
/// concrete type, so that the refresh engine's generic `handle` is specialized for it
/// rather than run unspecialized, looking up generic metadata on every call.
struct ConcreteRandom: RandomNumberGenerator {
    var base: any RandomNumberGenerator

    init(_ base: any RandomNumberGenerator) {
        self.base = base
    }

    mutating func next() -> UInt64 {
        base.next()
    }
}

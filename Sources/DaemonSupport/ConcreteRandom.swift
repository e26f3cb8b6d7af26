/// The coordinator's random number generator (any, so that tests can seed it) behind one
/// concrete type, so that the refresh engine's generic `handle` is specialized for it
/// rather than run unspecialized, looking up generic metadata on every call.
package struct ConcreteRandom: RandomNumberGenerator {
    package var base: any RandomNumberGenerator

    package init(_ base: any RandomNumberGenerator) {
        self.base = base
    }

    package mutating func next() -> UInt64 {
        base.next()
    }
}

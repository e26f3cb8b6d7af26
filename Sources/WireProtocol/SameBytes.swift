/// Whether two optional strings are written as the same bytes. Swift's `==` compares
/// canonical forms ("é" precomposed equals "e" with a combining accent): a line kept for
/// one value must not be reused for another that is equal but spelled otherwise.
package func sameBytes(_ a: String?, _ b: String?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return a.utf8.elementsEqual(b.utf8)
}

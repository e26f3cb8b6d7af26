/// Whether two optional strings are written as the same bytes. Swift's `==` compares
/// canonical forms ("é" precomposed equals "e" with a combining accent): a line kept for
/// one value must not be reused for another that is equal but spelled otherwise.
package func sameBytes(_ a: String?, _ b: String?) -> Bool {
    guard var a, var b else { return a == nil && b == nil }
    guard a.utf8.count == b.utf8.count else { return false }
    // Compared as buffers: the views' element-by-element walk costs about 300
    // instructions for a short name.
    return a.withUTF8 { a in b.withUTF8 { b in a.elementsEqual(b) } }
}

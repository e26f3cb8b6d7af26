/// Suggestions for a mistyped word: the closest of the words allowed where it was written
/// (a config key, a shell command). Owns the distance between words; must not do I/O.
public enum Spelling {
    /// The candidate closest to `word` by edit distance (insert, delete, substitute or swap
    /// two neighbours, each costing one), if it is close enough to be a typo: at most a
    /// third of the longer word's length, and at least one edit. Ties go to the earlier
    /// candidate. Nil for an exact match or when nothing is close.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let typed = Array(word.unicodeScalars)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let allowed = Array(candidate.unicodeScalars)
            let limit = max(1, max(typed.count, allowed.count) / 3)
            let distance = editDistance(typed, allowed)
            guard distance > 0, distance <= limit else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// Optimal string alignment distance: Levenshtein plus the swap of two neighbours.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}

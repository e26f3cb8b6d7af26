/// Collects every error of one load, once each, so that loading goes on past the first.
final class Diagnostics {
    private(set) var errors: [ConfigurationError] = []

    var isEmpty: Bool { errors.isEmpty }

    /// Records `error` unless the same error was already recorded: a bad `[defaults]` value
    /// is seen once per extension but reported once.
    func report(_ error: ConfigurationError) {
        if !errors.contains(error) { errors.append(error) }
    }

    /// The errors in reading order: by file (in `files` order), then line, then column;
    /// errors without a position come after those with one in the same file.
    func sorted(files: [String]) -> [ConfigurationError] {
        func rank(_ error: ConfigurationError, _ arrival: Int) -> [Int] {
            [files.firstIndex(of: error.file) ?? files.count, error.line ?? .max, error.column ?? 0, arrival]
        }
        return errors.enumerated()
            .sorted { rank($0.element, $0.offset).lexicographicallyPrecedes(rank($1.element, $1.offset)) }
            .map(\.element)
    }
}

import Foundation

/// The toml-test suite as Debian's `golang-github-burntsushi-toml-dev` ships it
/// (`scripts/install-deps` installs it): `valid/**/X.toml` with the expected values in
/// `X.json`, and `invalid/**/X.toml`, which every parser must refuse.
///
/// The `*.multi` files are the sources the suite generates single-line invalid cases from;
/// the generated `.toml` files sit next to them and are run instead.
enum TOMLTestSuite {
    static let root = "/usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests"

    /// The `.toml` files below `valid` or `invalid`, by relative path, in name order.
    static func cases(_ kind: String) throws -> [String] {
        let directory = root + "/" + kind
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            throw MissingSuite(directory: directory)
        }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".toml") }.sorted()
            .map { kind + "/" + $0 }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + path)))
    }

    /// The expected value of a valid case: tables as dictionaries, arrays as arrays, other
    /// values as `{"type": …, "value": "…"}`.
    static func expectation(_ path: String) throws -> Any {
        let json = String(path.dropLast(".toml".count)) + ".json"
        return try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/" + json)))
    }

    struct MissingSuite: Error, CustomStringConvertible {
        var directory: String
        var description: String { "\(directory) is missing: run scripts/install-deps (golang-github-burntsushi-toml-dev)" }
    }
}

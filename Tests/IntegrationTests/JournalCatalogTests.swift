import ExtensiondTestSupport
import Foundation
import Testing

/// `journalctl -x` explains every event the daemon writes: each `MESSAGE_ID` in the code
/// has an entry in catalog/extensiond.catalog that journalctl itself indexes, and
/// docs/METRICS.md lists the same ids.
@Suite struct JournalCatalogTests {
    let root = Binaries.packageRoot()

    /// The 128-bit ids written as string literals in the source files that send MESSAGE_ID.
    func messageIDsInTheCode() throws -> Set<String> {
        var ids = Set<String>()
        let sources = root + "/Sources"
        for path in FileManager.default.enumerator(atPath: sources)?.compactMap({ $0 as? String }) ?? [] where path.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + path, encoding: .utf8)
            guard text.contains("MESSAGE_ID") else { continue }
            ids.formUnion(text.matches(of: /"([0-9a-f]{32})"/).map { String($0.1) })
        }
        return ids
    }

    @Test func everyMessageIDHasACatalogEntryThatJournalctlIndexes() throws {
        let code = try messageIDsInTheCode()
        #expect(code.count >= 11, "\(code)")
        let catalog = try String(contentsOfFile: root + "/catalog/extensiond.catalog", encoding: .utf8)
        let entries = Set(catalog.matches(of: /(?m)^-- ([0-9a-f]{32})$/).map { String($0.1) })
        #expect(entries == code, "in the code only: \(code.subtracting(entries)); in the catalog only: \(entries.subtracting(code))")
        let metrics = try String(contentsOfFile: root + "/docs/METRICS.md", encoding: .utf8)
        for id in code { #expect(metrics.contains("`\(id)`"), "docs/METRICS.md does not list \(id)") }

        // journalctl's own parser, on a root of its own: every entry indexed with its subject.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalogs = directory.file("usr/lib/systemd/catalog")
        try FileManager.default.createDirectory(atPath: catalogs, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("var/lib/systemd/catalog"), withIntermediateDirectories: true)
        try catalog.write(toFile: catalogs + "/extensiond.catalog", atomically: true, encoding: .utf8)
        let update = try runCommand("/usr/bin/journalctl", ["--root=" + directory.path, "--update-catalog"], in: directory)
        #expect(update.exitCode == 0, "\(update.stderr)")
        let listed = try runCommand("/usr/bin/journalctl", ["--root=" + directory.path, "--list-catalog"], in: directory)
        let lines = listed.stdout.split(separator: "\n")
        for id in code {
            #expect(lines.contains { $0.hasPrefix(id + " extensiond: ") && $0.count > 40 }, "journalctl did not index \(id): \(listed.stdout)")
        }
        // The text journalctl -x shows beside a kill.
        let kill = try runCommand(
            "/usr/bin/journalctl", ["--root=" + directory.path, "--dump-catalog", "d29aa78288524e81afbb51efb686837b"],
            in: directory)
        #expect(kill.stdout.contains("Frequent pressure kills mean the memory budget is too small"), "\(kill.stdout)")
    }
}

import ExtensiondTestSupport
import Foundation
import Testing

/// The licence statement stays true as the project changes: LICENSE is the Apache-2.0
/// text, REUSE.toml puts every file under it, NOTICE attributes every Swift package the
/// build fetches, and the Debian copyright file says the same.
@Suite struct LicenceTests {
    let root = Binaries.packageRoot()

    func read(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    @Test func licenseIsTheApacheLicenceAndReuseCoversEveryFile() throws {
        let licence = try read("LICENSE")
        for phrase in [
            "Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
            "9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS",
        ] {
            #expect(licence.contains(phrase), "LICENSE lacks \"\(phrase)\"")
        }
        // REUSE wants the text under LICENSES/ by its SPDX identifier.
        #expect(try read("LICENSES/Apache-2.0.txt") == licence)
        let reuse = try read("REUSE.toml")
        #expect(reuse.contains("path = \"**\"") && reuse.contains("SPDX-License-Identifier = \"Apache-2.0\""), "\(reuse)")
        // A file that states another licence contradicts the blanket statement.
        let tracked = try runCommand(
            "/usr/bin/git", ["-C", root, "grep", "-l", "SPDX-License-Identifier:"],
            in: try TemporaryDirectory())
        let others = tracked.stdout.split(separator: "\n").filter { path in
            let text = (try? read(String(path))) ?? ""
            // A statement is a line of its own, behind a comment marker at most.
            return text.matches(of: /(?m)^[^\w"]*SPDX-License-Identifier: *(\S+)/).contains { $0.1 != "Apache-2.0" }
        }
        #expect(others.isEmpty, "files under another licence: \(others)")
    }

    /// Every package of every manifest, and every package the build checked out (the
    /// dependencies' own dependencies too), is named in NOTICE and debian/copyright.
    @Test func noticeAndDebianCopyrightNameEveryPackageLinked() throws {
        let notice = try read("NOTICE")
        let copyright = try read("debian/copyright")
        var packages = Set<String>()
        for manifest in ["Package.swift", "sdk/ExtensionSDK/Package.swift"] {
            let text = try read(manifest)
            for match in text.matches(of: /\.package\(url: "https:\/\/github\.com\/[^\/]+\/([^"]+)"/) {
                packages.insert(String(match.1))
            }
        }
        #expect(!packages.isEmpty)
        let checkouts = root + "/.build/checkouts"
        packages.formUnion((try? FileManager.default.contentsOfDirectory(atPath: checkouts)) ?? [])
        for package in packages.sorted() {
            #expect(notice.contains(package + " (https://github.com/"), "NOTICE does not name \(package)")
            #expect(copyright.contains(package), "debian/copyright does not name \(package)")
        }
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"))
        #expect(copyright.contains("Files: *\nCopyright: 2026 The extensiond authors\nLicense: Apache-2.0"))
    }
}

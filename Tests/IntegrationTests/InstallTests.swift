import ExtensiondTestSupport
import Foundation
import Testing

/// `make install` and `make deb` without the release build: scripts/install-files and
/// scripts/build-deb run on the test build's binaries into a temporary DESTDIR, and what
/// they put there is checked as a user would meet it (stripped binaries that still run,
/// man pages that `man -l` renders, completions, the unit with the prefix's paths).
@Suite struct InstallTests {
    let root = Binaries.packageRoot()

    /// Runs scripts/install-files into `directory`/dest with `environment` added.
    func install(_ directory: TemporaryDirectory, _ environment: [String: String] = [:]) throws -> CommandResult {
        let base = ["BIN": Binaries.directory, "DESTDIR": directory.file("dest"), "PREFIX": "/usr/local"]
        return try runCommand(
            root + "/scripts/install-files", [], environment: base.merging(environment) { $1 },
            in: directory, timeout: 300)
    }

    func sections(of binary: String, in directory: TemporaryDirectory) throws -> String {
        try runCommand("/usr/bin/readelf", ["--section-headers", "--wide", binary], in: directory).stdout
    }

    @Test func installPutsStrippedBinariesManPagesCompletionsUnitAndDocsInPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try install(directory, ["DEBUG_FILES": "1"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let prefix = directory.file("dest") + "/usr/local"
        for binary in ["extensiond", "supervisorctl"] {
            let path = prefix + "/bin/" + binary
            let headers = try sections(of: path, in: directory)
            #expect(!headers.contains(".symtab") && !headers.contains(".debug_info"), "\(binary) is not stripped")
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            let original = try FileManager.default.attributesOfItem(atPath: Binaries.path(binary))[.size] as? Int ?? 0
            #expect(size < original, "\(binary): \(size) bytes installed, \(original) built")
            let help = try runCommand(path, ["--help"], in: directory)
            #expect(help.exitCode == 0 && help.stdout.contains("USAGE: \(binary)"), "the stripped \(binary) runs")
        }
        let today = try runCommand(prefix + "/bin/extensiond-today", ["--help"], in: directory)
        #expect(today.exitCode == 0 && today.stdout.contains("usage: extensiond-today"), "the stripped Today view runs")
        // DEBUG_FILES=1: the debug info, apart, under the binaries' build ids (extensiond, the CLI, the Today view).
        let debugFiles = try FileManager.default.subpathsOfDirectory(atPath: prefix + "/lib/debug/.build-id")
            .filter { $0.hasSuffix(".debug") }
        #expect(debugFiles.count == 3, "\(debugFiles)")
        for file in debugFiles {
            #expect(try sections(of: prefix + "/lib/debug/.build-id/" + file, in: directory).contains(".debug_info"))
        }
        for file in [
            "share/man/man8/extensiond.8.gz", "share/man/man1/supervisorctl.1.gz", "share/man/man5/extensiond.toml.5.gz",
            "share/bash-completion/completions/supervisorctl", "share/zsh/site-functions/_supervisorctl",
            "share/fish/vendor_completions.d/supervisorctl.fish", "share/doc/extensiond/README.md",
            "share/doc/extensiond/docs/CONFIG.md", "share/doc/extensiond/docs/DESIGN.md",
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "missing \(file)")
        }
        let bash = try String(contentsOfFile: prefix + "/share/bash-completion/completions/supervisorctl", encoding: .utf8)
        #expect(bash.contains("complete ") && bash.contains("supervisorctl"))
        let unit = try String(contentsOfFile: prefix + "/lib/systemd/system/extensiond.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/extensiond "))
        #expect(FileManager.default.fileExists(atPath: directory.file("dest") + "/etc/extensiond/extensiond.toml"))
    }

    /// Each page renders without a warning, and says what the parser and CONFIG.md say:
    /// every subcommand of supervisorctl, every option of extensiond, every config key.
    @Test func manPagesRenderWithManL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(try install(directory).exitCode == 0)
        let man = directory.file("dest") + "/usr/local/share/man"
        func render(_ page: String) throws -> String {
            let result = try runCommand(
                "/usr/bin/man", ["-l", man + "/" + page], environment: ["MANWIDTH": "80", "MANPAGER": "cat", "LC_ALL": "C.UTF-8"], in: directory)
            #expect(result.exitCode == 0, "man -l \(page): \(result.stderr)")
            #expect(result.stderr.isEmpty, "man -l \(page) warns: \(result.stderr)")
            #expect(result.stdout.contains("NAME") && result.stdout.contains("SEE ALSO"), "\(page): \(result.stdout.prefix(400))")
            return result.stdout
        }
        let daemon = try render("man8/extensiond.8.gz")
        for option in ["--config", "--check-config", "--foreground", "--verbose"] {
            #expect(daemon.contains(option), "extensiond(8) lacks \(option)")
        }
        let cli = try render("man1/supervisorctl.1.gz")
        let help = try runCommand(Binaries.path("supervisorctl"), ["--experimental-dump-help"], in: directory)
        let tree = try JSONSerialization.jsonObject(with: Data(help.stdout.utf8)) as? [String: Any]
        let subcommands = ((tree?["command"] as? [String: Any])?["subcommands"] as? [[String: Any]] ?? [])
            .compactMap { $0["commandName"] as? String }.filter { $0 != "help" }
        #expect(subcommands.count > 10)
        for name in subcommands {
            #expect(cli.contains("supervisorctl \(name)"), "supervisorctl(1) lacks \(name)")
        }
        let config = try render("man5/extensiond.toml.5.gz")
        let keys = try String(contentsOfFile: root + "/docs/CONFIG.md", encoding: .utf8).split(separator: "\n")
            .compactMap { line -> String? in
                guard line.hasPrefix("| `") else { return nil }
                return line.dropFirst(3).split(separator: "`").first.map(String.init)
            }
        #expect(keys.count > 20)
        // A table cell may break a long key across lines with a hyphen: compare unbroken text.
        let flowing = config.replacingOccurrences(of: "‐\n", with: "").replacingOccurrences(of: "-\n", with: "")
            .split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "│" }).joined(separator: " ")
        for key in keys {
            #expect(flowing.contains(key), "extensiond.toml(5) lacks \(key)")
        }
    }

    /// Debian's supervisor package owns /usr/bin/supervisorctl: never overwritten unasked.
    @Test func installRefusesToReplaceAForeignSupervisorctl() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let theirs = "#!/usr/bin/python3\nfrom supervisor.supervisorctl import main\nmain()\n"
        try FileManager.default.createDirectory(atPath: directory.file("dest") + "/usr/local/bin", withIntermediateDirectories: true)
        let foreign = directory.file("dest") + "/usr/local/bin/supervisorctl"
        try theirs.write(toFile: foreign, atomically: true, encoding: .utf8)

        let refused = try install(directory)
        #expect(refused.exitCode == 1)
        #expect(refused.stderr.contains("not extensiond's") && refused.stderr.contains("FORCE=1") && refused.stderr.contains("CTL="), "\(refused.stderr)")
        #expect(try String(contentsOfFile: foreign, encoding: .utf8) == theirs)
        #expect(!FileManager.default.fileExists(atPath: directory.file("dest") + "/usr/local/bin/extensiond"), "nothing installed")

        let beside = try install(directory, ["CTL": "extensiondctl"])
        #expect(beside.exitCode == 0, "\(beside.stderr)")
        #expect(try String(contentsOfFile: foreign, encoding: .utf8) == theirs)
        let prefix = directory.file("dest") + "/usr/local"
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/man/man1/extensiondctl.1.gz"))
        let completion = try String(contentsOfFile: prefix + "/share/bash-completion/completions/extensiondctl", encoding: .utf8)
        #expect(completion.contains("extensiondctl") && !completion.contains("supervisorctl"))

        let forced = try install(directory, ["FORCE": "1"])
        #expect(forced.exitCode == 0, "\(forced.stderr)")
        #expect(FileManager.default.contents(atPath: foreign) != Data(theirs.utf8), "FORCE=1 installs ours")
    }

    /// `make deb` (dpkg-buildpackage on debian/, here on the test build's binaries): the
    /// packages' contents, their debhelper maintainer scripts, and lintian finds nothing.
    /// Their life under systemd is tests/vm/deb.
    @Test func debHasTheUnitAConffileTheMaintainerScriptsAndItsLibraries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let built = try runCommand(
            root + "/scripts/build-deb", [directory.file("out")], environment: ["BIN": Binaries.directory],
            in: directory, timeout: 900)
        #expect(built.exitCode == 0, "\(built.stderr)")
        let deb = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.hasSuffix("_amd64.deb") || deb.hasSuffix(".deb"))
        let info = try runCommand("/usr/bin/dpkg-deb", ["--info", deb], in: directory).stdout
        for needed in ["Package: extensiond", "libc6", "conffiles", "postinst", "prerm", "postrm", "triggers"] {
            #expect(info.contains(needed), "dpkg-deb --info lacks \(needed): \(info)")
        }
        let scripts = directory.file("control")
        #expect(try runCommand("/usr/bin/dpkg-deb", ["--control", deb, scripts], in: directory).exitCode == 0)
        let postinst = try String(contentsOfFile: scripts + "/postinst", encoding: .utf8)
        for step in [
            "dh_installalternatives", "--slave /usr/share/bash-completion/completions/supervisorctl",
            "systemd-sysusers", "deb-systemd-helper", "extensiond.service", "\"$1\" = triggered",
        ] {
            #expect(postinst.contains(step), "postinst lacks \(step): \(postinst)")
        }
        #expect(try String(contentsOfFile: scripts + "/postrm", encoding: .utf8).contains("groupdel extensiond"))
        let pythonName = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory.file("out"))
                .first { $0.hasPrefix("python3-extensiond_") && $0.hasSuffix("_all.deb") })
        let python = directory.file("out") + "/" + pythonName
        let sdk = try runCommand("/usr/bin/dpkg-deb", ["--contents", python], in: directory).stdout
        #expect(sdk.contains("./usr/lib/python3/dist-packages/extensiond/testing.py"), "\(sdk)")
        // The test build links the toolchain's shared runtime (RUNPATH); the release build
        // of `make deb` links it statically.
        let lint = try runCommand(
            "/usr/bin/lintian",
            [
                "--fail-on", "error,warning", "--suppress-tags", "custom-library-search-path",
                deb.replacingOccurrences(of: ".deb", with: ".changes"),
            ],
            in: directory, timeout: 600)
        #expect(lint.exitCode == 0, "lintian: \(lint.stdout)\(lint.stderr)")
        // The daemon links libseccomp (dpkg-shlibdeps names it) and loads libsystemd (debian/control).
        for library in ["libsystemd0", "libseccomp2"] {
            #expect(info.contains(library), "the package does not depend on \(library): \(info)")
        }
        let contents = try runCommand("/usr/bin/dpkg-deb", ["--contents", deb], in: directory).stdout
        for path in [
            "./usr/bin/extensiond", "./usr/bin/extensiondctl", "./lib/systemd/system/extensiond.service", "./lib/systemd/system/extensiond.socket",
            "./etc/extensiond/extensiond.toml", "./usr/share/man/man8/extensiond.8.gz",
            "./usr/lib/systemd/catalog/extensiond.catalog", "./usr/share/doc/extensiond/copyright",
            "./usr/share/extensiond/prometheus/extensiond-alerts.yml", "./usr/share/extensiond/completions/supervisorctl.bash",
        ] {
            #expect(contents.contains(path), "the package lacks \(path)")
        }
        #expect(!contents.contains("./usr/bin/supervisorctl"), "supervisorctl is an alternative, not a file of the package")
        // The conffile is valid and hands control.sock to the group postinst creates.
        #expect(try runCommand("/usr/bin/dpkg-deb", ["--extract", deb, directory.file("root")], in: directory).exitCode == 0)
        let conffile = directory.file("root") + "/etc/extensiond/extensiond.toml"
        #expect(try String(contentsOfFile: conffile, encoding: .utf8).contains("control_group = \"extensiond\""))
        let check = try runCommand(Binaries.path("extensiond"), ["--check-config", "--config", conffile], in: directory)
        #expect(check.exitCode == 0, "\(check.stderr)")
        #expect(contents.split(separator: "\n").allSatisfy { $0.contains("root/root") }, "files belong to root")
        try checkTheOtherPackages(in: directory)
    }

    /// The Today view, the shared runtime and the demo: each in its package, depending on the
    /// daemon (and the demo on the runtime) of the same version, the drop-ins links into
    /// the packages that the daemon's conffile accepts. Whether the demo runs without a Swift
    /// toolchain is tests/vm/deb.
    func checkTheOtherPackages(in directory: TemporaryDirectory) throws {
        let out = directory.file("out")
        func package(_ name: String) throws -> String {
            let file = try #require(
                try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasPrefix(name + "_") && $0.hasSuffix(".deb") },
                "no \(name) package")
            return out + "/" + file
        }
        let expected = [
            "extensiond-today": [
                "./usr/bin/extensiond-today", "./usr/share/man/man1/extensiond-today.1.gz",
                "./etc/extensiond/extensiond.d/extensiond-today.toml -> /usr/share/extensiond-today/extensiond-today.toml",
            ],
            "extensiond-swift-runtime": [
                "./usr/lib/extensiond/swift/libswiftCore.so", "./usr/lib/extensiond/swift/libswift_Concurrency.so",
                "./usr/share/doc/extensiond-swift-runtime/copyright",
            ],
            "extensiond-demo": [
                "./usr/lib/extensiond/demo/DemoWidget", "./usr/lib/extensiond/demo/DemoApp",
                "./usr/share/extensiond-demo/cards/clock.json",
                "./etc/extensiond/extensiond.d/extensiond-demo.toml -> /usr/share/extensiond-demo/extensiond-demo.toml",
            ],
        ]
        for (name, paths) in expected {
            let deb = try package(name)
            let contents = try runCommand("/usr/bin/dpkg-deb", ["--contents", deb], in: directory).stdout
            for path in paths { #expect(contents.contains(path), "\(name) lacks \(path): \(contents)") }
            #expect(try runCommand("/usr/bin/dpkg-deb", ["--extract", deb, directory.file("root")], in: directory).exitCode == 0)
        }
        let fields = { (name: String) in try runCommand("/usr/bin/dpkg-deb", ["--field", try package(name), "Depends"], in: directory).stdout }
        #expect(try fields("extensiond-today").contains("extensiond (= "))
        #expect(try fields("extensiond-demo").contains("extensiond-swift-runtime (= "))
        #expect(try fields("extensiond-swift-runtime").contains("libstdc++6"), "dpkg-shlibdeps names the runtime's C++ library")
        // The links point into /usr/share of the device; here the packages' files are in root.
        let dropIns = directory.file("root") + "/etc/extensiond/extensiond.d"
        for name in ["extensiond-today", "extensiond-demo"] {
            try FileManager.default.removeItem(atPath: "\(dropIns)/\(name).toml")
            try FileManager.default.copyItem(atPath: directory.file("root") + "/usr/share/\(name)/\(name).toml", toPath: "\(dropIns)/\(name).toml")
        }
        let check = try runCommand(
            Binaries.path("extensiond"), ["--check-config", "--config", directory.file("root") + "/etc/extensiond/extensiond.toml"],
            in: directory)
        #expect(check.exitCode == 0, "\(check.stdout)\(check.stderr)")
    }

    /// extensiond-today(1) (debian/extensiond-today.1, written by hand) names every option
    /// `extensiond-today --help` lists.
    @Test func todayManPageNamesEveryOption() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let help = try runCommand(Binaries.path("extensiond-today"), ["--help"], in: directory).stdout
        let page = try String(contentsOfFile: root + "/debian/extensiond-today.1", encoding: .utf8)
        let options = Set(help.split(whereSeparator: { " [].\n".contains($0) }).filter { $0.hasPrefix("--") })
        #expect(options.count >= 4, "\(help)")
        for option in options {
            #expect(page.contains("\\fB" + option.replacingOccurrences(of: "-", with: "\\-") + "\\fR"), "the man page lacks \(option)")
        }
    }
}

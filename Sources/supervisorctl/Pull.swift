import ArgumentParser
import ControlProtocol
import WireProtocol

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Pull a widget as a host would; print where the snapshot came from, then the snapshot."
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "The display mode: compact or expanded.") var mode: DisplayMode = .compact
    @Argument(help: ArgumentHelp("An extension id.", valueName: "extension"), completion: NameCompletion.names) var name: String

    func run() throws {
        let response = try global.call(.pull(PullRequest(name: name, mode: mode)))
        global.show(response) { $0.pull.map(PullFormat.text) }
        if let report = response.pull, report.result == "failed" {
            throw CommandFailed(message: "\(name): the update failed: \(report.error ?? "no reason given")", status: .failed)
        }
    }
}

extension DisplayMode: ExpressibleByArgument {}

/// How `pull` shows a report: the facts of the pull, one per line, then the snapshot.
enum PullFormat {
    static func text(_ report: PullReport) -> String {
        var facts: [(String, String)] = [
            ("extension", report.extensionID),
            ("delivery", report.delivery),
            ("result", report.result),
            ("version", "\(report.version)"),
            ("age", Format.milliseconds(Int64(clamping: report.ageMs))),
            ("stale", report.stale ? "yes" : "no"),
        ]
        if let error = report.error { facts.append(("error", error)) }
        facts.append(("latency", Format.microseconds(Int64(clamping: report.latencyUs)) + " in the daemon"))
        let width = facts.map(\.0.count).max() ?? 0
        let lines = facts.map { name, value in name + ":" + String(repeating: " ", count: width - name.count + 1) + value }
        return (lines + [prettyJSON(report.snapshot)]).joined(separator: "\n")
    }

    /// The snapshot indented over several lines, keys sorted; `null` when there is none yet.
    static func prettyJSON(_ value: JSONValue?) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let value, let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}

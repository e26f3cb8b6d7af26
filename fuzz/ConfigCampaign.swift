import ControlProtocol
import ExtensiondTestSupport
import Foundation

// Config files: mutated, checked by `extensiond --check-config`, applied by `reload`, and
// when accepted, run.
extension Campaigns {
    /// Writes a mutated config, checks it with `--check-config` and asks for a reload;
    /// every few, the valid config again. Both must answer, never crash. A mutated config
    /// that passes is run (a widget launched, left idle, stopped), not only read.
    mutating func config(budget: Int) throws -> CampaignResult {
        var result = CampaignResult()
        let base = Array(target.baseConfigFile.utf8)
        while result.messages < budget && timeLeft {
            let valid = mutator.chance(0.2)
            let text = valid ? base : mutatedConfig(target.baseConfigFile)
            try target.writeConfig(text)
            if !valid { result.mutated += 1 }
            result.messages += 1
            let check = try runCommand(
                Binaries.path("extensiond"), ["--check-config", "--config", target.daemon.configPath],
                in: target.daemon.directory)
            guard check.exitCode == 0 || check.exitCode == 1 else {
                throw FuzzFailure("extensiond --check-config exited \(check.exitCode) on config \(result.messages):\n\(check.stderr.suffix(2000))")
            }
            if check.exitCode == 1 { result.checksRefused += 1 }
            guard let answer = try? target.answer(.reload, timeout: 10) else {
                result.noteUnanswered(Array(text.prefix(300)))
                try target.check("config reload \(result.messages)")
                continue
            }
            result.answers += 1
            if !answer.ok { result.reloadsRefused += 1 }
            guard answer.ok == (check.exitCode == 0) else {
                throw FuzzFailure("--check-config exited \(check.exitCode) but reload answered ok: \(answer.ok) on config \(result.messages)")
            }
            if answer.ok && !valid {
                try run("config \(result.messages)", &result)
            } else if result.messages % 20 == 0 {
                try target.check("config reload \(result.messages)")
            }
        }
        try target.writeConfig(base)
        guard try target.answer(.reload, timeout: 10).ok else { throw FuzzFailure("the base config no longer reloads") }
        try target.check("the end of the config campaign")
        return result
    }

    /// Launch (a pull), idle, stop of the widget whose keys ``mutatedConfig(_:)`` sets at
    /// their extremes. The pull and the stop may fail (a 1-byte limit, a 1 ms deadline):
    /// what must hold is that the daemon answers them and passes the check after.
    private func run(_ context: String, _ result: inout CampaignResult) throws {
        let widget = NameSelection(["fuzz.echo"])
        for request in [ControlRequest.pull(PullRequest(name: "fuzz.echo")), .status(widget), .stop(widget)] {
            if (try? target.answer(request, timeout: 15)) == nil { result.noteUnanswered(Array("\(request.command) after \(context)".utf8)) }
        }
        result.runs += 1
        try target.check("running \(context)")
    }

    /// The keys of a widget's table and of its refresh table, by kind of value.
    private static let widgetKeys: [(key: String, values: [String], refresh: Bool)] = [
        ("idle_exit", ValueExtremes.durations, false), ("start_timeout", ValueExtremes.durations, false),
        ("stop_timeout", ValueExtremes.durations, false), ("memory_max", ValueExtremes.sizes, false),
        ("pids_max", ValueExtremes.counts, false), ("priority", ValueExtremes.counts, false),
        ("interval", ValueExtremes.durations, true), ("min_interval", ValueExtremes.durations, true),
        ("max_interval", ValueExtremes.durations, true), ("jitter", ValueExtremes.durations, true),
        ("deadline", ValueExtremes.durations, true), ("backoff_base", ValueExtremes.durations, true),
        ("backoff_max", ValueExtremes.durations, true), ("daily_budget", ValueExtremes.counts, true),
        ("budget_burst", ValueExtremes.counts, true),
    ]

    /// `fuzz.echo` with a few of its keys at the ends of their ranges or just past them.
    private mutating func extremeWidget(_ lines: inout [String]) {
        for _ in 0..<mutator.int(1...4) {
            let (key, values, refresh) = mutator.pick(Self.widgetKeys)
            let table = refresh ? #"[extensions."fuzz.echo".refresh]"# : #"[extensions."fuzz.echo"]"#
            guard let header = lines.firstIndex(of: table) else { return }
            let value = mutator.pick(values)
            // Counts are TOML integers; a size may be one when it has no unit.
            let bare = values == ValueExtremes.counts || (values == ValueExtremes.sizes && !value.hasSuffix("G") && mutator.chance(0.3))
            let end = lines[(header + 1)...].firstIndex { $0.hasPrefix("[") } ?? lines.endIndex
            let kept = lines[(header + 1)..<end].filter { !$0.hasPrefix(key + " = ") }
            lines.replaceSubrange((header + 1)..<end, with: ["\(key) = " + (bare ? value : "\"\(value)\"")] + kept)
        }
    }

    /// The config with one structure-aware change: a value of the wrong type or out of
    /// range, deep nesting, a huge string, an unknown or repeated key or table, a cut,
    /// garbage, or a widget's durations, sizes and counts at the ends of their ranges.
    private mutating func mutatedConfig(_ text: String) -> [UInt8] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = mutator.int(0...(lines.count - 1))
        let assignments = lines.indices.filter { lines[$0].contains(" = ") }
        if mutator.chance(0.4) {
            extremeWidget(&lines)
            return Array(lines.joined(separator: "\n").utf8)
        }
        switch mutator.int(0...9) {
        case 0:
            let bytes = Array(text.utf8)
            return Array(bytes.prefix(mutator.int(0...bytes.count)))
        case 1, 2, 3:
            let line = mutator.pick(assignments)
            let key = lines[line].components(separatedBy: " = ")[0]
            let depth = mutator.int(1...3000)
            let value = mutator.pick([
                "\"text\"", "-1", "0", "99999999999999999999", "1e999", "nan", "-inf", "true", "[]", "{}", "\"5x\"",
                "\"-3s\"", "\"99999999h\"", "\"1TiB\"", "1979-05-27T07:32:00Z",
                String(repeating: "[", count: depth) + String(repeating: "]", count: depth),
                "\"" + String(repeating: "x", count: mutator.int(1000...200_000)) + "\"",
            ])
            lines[line] = key + " = " + value
        case 4: lines.insert(mutator.pick(["zzz = 1", "command = []", "memory_max = \"1K\"", "enabled = \"yes\""]), at: index)
        case 5: lines.insert(lines[index], at: index)
        case 6: lines.insert(mutator.pick(["[", "[.", "[[[", "[hosts", "[hosts.panel]", "]]", "= 1", "\"unterminated", "'''"]), at: index)
        case 7: lines.insert(String(decoding: mutator.garbage(mutator.int(1...80)), as: UTF8.self), at: index)
        case 8: lines.remove(at: index)
        default: lines.insert("[extensions.\"x\(mutator.int(0...9))\"]\napp = \"fuzz.app\"\npoint = \"widget\"\ncommand = [\"/bin/true\"]", at: index)
        }
        return Array(lines.joined(separator: "\n").utf8)
    }
}

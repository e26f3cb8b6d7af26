/// `extensiond-fuzz`: structure-aware fuzzing of every protocol of a real extensiond
/// (`make fuzz`; docs/ARCHITECTURE.md, "Fuzzing").
///
/// It starts the daemon in a throw-away cgroup and directories and sends it mutated
/// messages on each of its inputs: the extension protocol on fd 3 (through a relay
/// extension that hands its socket over), host.sock, control.sock, and config files
/// read by `reload`. After every batch it checks that the daemon is alive, that its RSS is
/// under the bound, and that it runs no more processes and groups than configured; at the
/// end, that it stops cleanly and leaves nothing behind. Seeded: a seed repeats a run.
///
///     extensiond-fuzz [--messages N] [--seconds S] [--seed N] [--rss-limit-mib N] [--protocols host,control,extension,config]
import ExtensiondTestSupport
import Foundation

@main
struct Fuzz {
    static func main() {
        do {
            let options = try Options(CommandLine.arguments.dropFirst())
            try run(options)
        } catch {
            FileHandle.standardError.write(Data("extensiond-fuzz: FAILED: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Shares of the message budget, by what a message costs: a host message is cheap, a
    /// control request a connection, an extension session a launch (most mutations end the
    /// run: a violation), a config a `--check-config` run and a reload.
    static let shares: [(String, Double)] = [("host", 0.6), ("control", 0.25), ("extension", 0.1), ("config", 0.05)]

    static func run(_ options: Options) throws {
        let target = try Target(rssLimit: options.rssLimit)
        let started = ContinuousClock.now
        let end = started + .seconds(options.seconds)
        var campaigns = Campaigns(target: target, mutator: Mutator(seed: options.seed), deadline: end)
        print(
            "extensiond-fuzz: seed \(options.seed), \(options.messages) messages, at most \(options.seconds) s, "
                + "RSS bound \(options.rssLimit >> 20) MiB, daemon pid \(target.pid)")
        print("protocol    messages  mutated  conns/runs  answers   errors  closed  kills  refused  RSS MiB min-max  msg/s  seconds")
        let chosen = shares.filter { options.protocols.contains($0.0) }
        var total = 0
        for (index, (name, share)) in chosen.enumerated() {
            let budget = max(1, Int(Double(options.messages) * share / chosen.map(\.1).reduce(0, +)))
            // Each campaign gets an equal part of the time left, so that all of them run.
            let began = ContinuousClock.now
            campaigns.deadline = began + (end - began) / (chosen.count - index)
            target.resetRSSRange()
            let killsBefore = try target.killCounts()
            var result: CampaignResult =
                switch name {
                case "host": try campaigns.host(budget: budget)
                case "control": try campaigns.control(budget: budget)
                case "extension": try campaigns.extensionChannel(budget: budget)
                default: try campaigns.config(budget: budget)
                }
            // Per process, so that the config campaign's removals do not count as negative kills.
            result.kills = try target.killCounts().reduce(0) { $0 + max(0, $1.value - (killsBefore[$1.key] ?? 0)) }
            result.rss = target.rssRange
            total += result.messages
            let seconds = Double((ContinuousClock.now - began).components.attoseconds) / 1e18 + Double((ContinuousClock.now - began).components.seconds)
            let refused = name == "config" ? "\(result.reloadsRefused)/\(result.checksRefused)" : "-"
            print(
                String(
                    format: "%-10@ %9d %8d %11d %8d %8d %7d %6d %8@ %7d-%-8d %6.0f %8.1f", name as NSString, result.messages, result.mutated,
                    result.connections, result.answers, result.errorsAnswered, result.closedByDaemon, result.kills, refused as NSString,
                    Int(result.rss.min >> 20), Int(result.rss.max >> 20), Double(result.messages) / max(seconds, 0.001), seconds))
            if name == "config" { print("config runs: \(result.runs) accepted mutated configs run (launch, idle, stop)") }
            fflush(nil)  // a long run shows its progress in a pipe or file too
            if result.unanswered > 0 {
                throw FuzzFailure("\(result.unanswered) \(name) requests got no answer, e.g.:\n" + result.unansweredSamples.joined(separator: "\n"))
            }
        }
        if total < options.messages * 99 / 100 {
            print("cut short by the time limit (\(options.seconds) s): \(total) of \(options.messages) messages sent")
        }
        print("mutations: " + campaigns.mutator.counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        let peak = target.peakRSS
        try target.finish()
        let seconds = Int((ContinuousClock.now - started).components.seconds)
        print(
            "ok: \(total) messages in \(seconds) s (\(total / max(seconds, 1)) msg/s), \(target.checks) checks, "
                + "daemon peak RSS \(peak >> 20) MiB (bound \(options.rssLimit >> 20) MiB), nothing left behind")
    }
}

/// The command line.
struct Options {
    var messages = 20_000
    var seconds = 3600
    var seed: UInt64 = 1
    var rssLimit: UInt64 = 128 << 20
    var protocols: Set<String> = ["host", "control", "extension", "config"]

    init(_ arguments: ArraySlice<String>) throws {
        var arguments = arguments
        while let option = arguments.popFirst() {
            guard let value = arguments.popFirst() else { throw FuzzFailure("\(option) needs a value") }
            switch option {
            case "--messages": messages = try Self.number(value, option)
            case "--seconds": seconds = try Self.number(value, option)
            case "--seed": seed = UInt64(try Self.number(value, option))
            case "--rss-limit-mib": rssLimit = UInt64(try Self.number(value, option)) << 20
            case "--protocols":
                protocols = Set(value.split(separator: ",").map(String.init))
                let unknown = protocols.subtracting(Fuzz.shares.map(\.0))
                guard unknown.isEmpty else { throw FuzzFailure("unknown protocols \(unknown.sorted())") }
            default: throw FuzzFailure("unknown option \(option) (see the comment at the top of fuzz/Fuzz.swift)")
            }
        }
    }

    private static func number(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw FuzzFailure("\(option) '\(text)' is not a positive number") }
        return value
    }
}

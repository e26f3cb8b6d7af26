import ControlProtocol
import ExtensiondTestSupport
import Foundation

// Extension fd 3: the protocol an extension speaks, through a relay extension's socket.
extension Campaigns {
    /// Each session launches the relay extension, takes its fd 3 and speaks the extension
    /// protocol on it until the daemon ends the run (most mutations are violations) or the
    /// session's share of messages is sent.
    mutating func extensionChannel(budget: Int) throws -> CampaignResult {
        var result = CampaignResult()
        let listener = try UnixListener(path: target.relaySocket)
        var host = Peer.connect(to: target.daemon.hostSocket, keepLines: false)
        var pullID = 0
        while result.messages < budget && timeLeft {
            // A manual refresh launches the extension (a pull would be served from the cache
            // while the snapshot is fresh); the control connection answers once the update ends.
            let refresh = Peer.connect(to: target.daemon.controlSocket)
            refresh?.write(ControlCodec.line(ControlRequest.refresh(NameSelection(["fuzz.ext"]))))
            defer { refresh?.close() }
            pullID += 1
            if host?.isClosed != false { host = Peer.connect(to: target.daemon.hostSocket) }
            guard let (relay, channelFD) = listener.acceptRelay(timeout: 10_000) else {
                try target.check("launching the relay extension")
                continue
            }
            result.connections += 1
            let channel = Peer(fd: channelFD, keepLines: true)
            var outstanding: [Int] = []
            var id = 1000
            var lines: [[UInt8]] = [mutator.chance(0.02) ? mutator.mutatedLine(Self.ready) : Self.ready.line]
            let length = mutator.int(1...1000)
            var sent = 0
            while result.messages < budget && !channel.isClosed && sent < length && timeLeft {
                for _ in 0..<mutator.int(1...5) {
                    id += 1
                    let message = extensionMessage(id: id, outstanding: &outstanding)
                    if mutator.chance(0.03) {
                        lines.append(mutator.mutatedLine(message))
                        result.mutated += 1
                    } else {
                        lines.append(message.line)
                    }
                }
                result.messages += lines.count
                sent += lines.count
                for write in mutator.interleave(lines) where !channel.write(write) { break }
                lines.removeAll()
                channel.read(timeout: 2)
                for line in channel.takeLines() { outstanding += Self.updateIDs(in: line) }
                if mutator.chance(0.05) {
                    host?.write(
                        JSONText.object([
                            ("type", .string("pull")), ("id", .int(pullID)),
                            ("extension", .string("fuzz.ext")), ("mode", .string("compact")),
                            ("maxSize", .object([("width", .int(1)), ("height", .int(1))])),
                        ]).line)
                }
                host?.read()
            }
            channel.read(timeout: 20)
            if channel.isClosed { result.closedByDaemon += 1 }
            result.answers += channel.linesReceived
            channel.close()
            relay.close()
            try target.check("extension session \(result.connections)")
        }
        return result
    }

    static let ready = JSONText.object([("type", .string("ready")), ("protocol", .int(1))])

    private mutating func extensionMessage(id: Int, outstanding: inout [Int]) -> JSONText {
        if !outstanding.isEmpty && mutator.chance(0.6) {
            let answered = outstanding.removeFirst()
            let side: JSONText = mutator.chance(0.2) ? .number(mutator.pick(ValueExtremes.sides)) : .int(mutator.pick([-1, 0, 320, 70_000]))
            let size = JSONText.object([("width", side), ("height", .int(160))])
            // Entries a second apart, in the past or the future, sometimes out of order; or
            // dates at the ends of time, ascending.
            let timeline =
                mutator.chance(0.2)
                ? JSONText.array(
                    ValueExtremes.dates.filter { _ in mutator.chance(0.3) }.enumerated().map { index, date in
                        .object([("date", .string(date)), ("snapshot", .object([("entry", .int(index))]))])
                    })
                : JSONText.array(
                    (0..<mutator.int(0...3)).map { index in
                        .object([
                            ("date", .string("20\(mutator.pick(["20", "40"]))-01-01T00:00:0\(mutator.chance(0.9) ? index : 0)Z")),
                            ("snapshot", .object([("entry", .int(index))])),
                        ])
                    })
            let reload: JSONText =
                mutator.chance(0.2)
                ? .object([("after", .string(mutator.pick(ValueExtremes.dates)))])
                : .string(mutator.pick(["atEnd", "never"]))
            let result = mutator.pick(["newData", "noData", "failed"])
            var members: [(String, JSONText)] = [
                ("type", .string("result")), ("id", .int(answered)), ("result", .string(result)),
                ("snapshot", .object([("n", .int(id))])), ("reload", reload),
                ("preferredSize", size),
            ]
            if result == "newData" { members.append(("timeline", timeline)) }
            return .object(members)
        }
        // A `complete` for no `begin` and a second `ready` are violations: rare, as they end the run.
        if mutator.chance(0.01) {
            return mutator.chance(0.5) ? Self.ready : .object([("type", .string("complete")), ("id", .int(id)), ("items", .array([]))])
        }
        switch mutator.int(0...4) {
        case 0, 1:
            let op = mutator.pick(["get", "get", "list", "set", "remove"])
            var members: [(String, JSONText)] = [
                ("type", .string("defaults")), ("id", .int(id)), ("group", .string("group.fuzz")),
                ("op", .string(op)), ("key", .string("k\(mutator.int(0...3))")),
            ]
            if op == "set" { members.append(("value", mutator.chance(0.2) ? mutator.extreme() : .int(id))) }
            return .object(members)
        case 2 where mutator.chance(0.1): return .object([("type", .string("openURL")), ("id", .int(id)), ("url", .string("fuzz://\(id)"))])
        default: return .object([("type", .string("setHasContent")), ("value", .bool(mutator.chance(0.8)))])
        }
    }

    /// The ids of the `update` requests in a line from the daemon.
    private static func updateIDs(in line: [UInt8]) -> [Int] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            object["type"] as? String == "update", let id = object["id"] as? Int
        else { return [] }
        return [id]
    }
}

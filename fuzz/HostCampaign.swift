// host.sock: hosts that list, pull, subscribe and perform, manage a gallery they may not
// manage, send types of a later protocol, read or fall behind, and leave.
extension Campaigns {
    mutating func host(budget: Int) throws -> CampaignResult {
        var result = CampaignResult()
        var slots: [Peer?] = Array(repeating: nil, count: 8)
        var id = 0
        /// Lines received on connections already replaced.
        var answers = (lines: 0, errors: 0)
        while result.messages < budget && timeLeft {
            let slot = mutator.int(0...(slots.count - 1))
            if slots[slot] == nil || slots[slot]!.isClosed {
                if let closed = slots[slot] {
                    if closed.isClosed { result.closedByDaemon += 1 }
                    answers = (answers.lines + closed.linesReceived, answers.errors + closed.errorsReceived)
                }
                slots[slot] = Peer.connect(to: target.daemon.hostSocket)
                result.connections += 1
            }
            guard let peer = slots[slot] else { continue }
            var lines: [[UInt8]] = []
            for _ in 0..<mutator.int(1...6) {
                id += 1
                let message = hostMessage(id: id)
                if mutator.chance(0.3) {
                    lines.append(mutator.mutatedLine(message))
                    result.mutated += 1
                } else {
                    lines.append(message.line)
                }
            }
            result.messages += lines.count
            for write in mutator.interleave(lines) where !peer.write(write) { break }
            // Mostly a host that reads; sometimes one that falls behind or goes away.
            if mutator.chance(0.9) { peer.read(timeout: mutator.chance(0.1) ? 50 : 0) }
            if mutator.chance(0.01) { peer.close() }
            if result.messages / Self.batch != (result.messages - lines.count) / Self.batch {
                try target.check("host.sock message \(result.messages)")
            }
        }
        for peer in slots.compactMap({ $0 }) { peer.read(timeout: 100) }
        result.answers = answers.lines + slots.reduce(0) { $0 + ($1?.linesReceived ?? 0) }
        result.errorsAnswered = answers.errors + slots.reduce(0) { $0 + ($1?.errorsReceived ?? 0) }
        try target.check("the end of the host.sock campaign")
        return result
    }

    private mutating func hostMessage(id: Int) -> JSONText {
        let size = JSONText.object([("width", .int(320)), ("height", .int(160))])
        switch mutator.int(0...7) {
        case 0:
            return .object([
                ("type", .string("list")), ("id", .int(id)), ("locale", .string(mutator.pick(["zh-CN", "fr", "x"]))),
                ("place", .string(mutator.pick(["fuzz", "nowhere"]))),
            ])
        case 1, 2:
            var members: [(String, JSONText)] = [
                ("type", .string("pull")), ("id", .int(id)),
                ("extension", .string(mutator.pick(["fuzz.echo", "fuzz.echo", "fuzz.action", "nope"]))),
                ("mode", .string(mutator.pick(["compact", "expanded"]))), ("maxSize", size),
            ]
            // Sometimes an instance, of a few names or of ever new ones (past the limit of 64).
            if mutator.chance(0.3) {
                members.append(("instance", .string(mutator.chance(0.5) ? "city\(mutator.int(0...3))" : "i\(id)")))
                if mutator.chance(0.5) { members.append(("params", .object([("city", .string("x\(mutator.int(0...9))"))]))) }
            }
            if mutator.chance(0.2) { members.append(("place", .string(mutator.pick(["fuzz", "nowhere"])))) }
            // What the Today view adds, and a waiting pull: the fast path's optional fields.
            if mutator.chance(0.2) { members.append(("wait", .bool(mutator.chance(0.5)))) }
            if mutator.chance(0.3) {
                members.append(("colorScheme", .string(mutator.pick(["light", "dark", "dim"]))))
                members.append(("locale", .string(mutator.pick(["en-GB", "zh_CN", "e n", ""]))))
                members.append(("scale", .number(mutator.pick(["1", "2.625", "0.25", "16", "16.5", "0", "1e400"]))))
            }
            return .object(members)
        case 3: return .object([("type", .string("subscribe")), ("id", .int(id)), ("extensions", .array([.string("fuzz.echo")]))])
        case 6:
            // The gallery's requests, refused to these external hosts; and a later protocol's type.
            let type = mutator.pick(["enable", "addInstance", "removeInstance", "arrange", "hello"])
            return .object([
                ("type", .string(type)), ("id", .int(id)), ("extension", .string("fuzz.echo")), ("enabled", .bool(true)),
                ("instance", .string("i\(id)")), ("params", .object([])),
                ("widgets", .array([.object([("extension", .string("fuzz.echo"))])])),
            ])
        case 4:
            let shown = JSONText.object([("extension", .string(mutator.pick(["fuzz.echo", "fuzz.action", "nope"])))])
            return .object([
                ("type", .string("visible")), ("id", .int(id)), ("extensions", .array([shown])),
                ("visible", .bool(mutator.chance(0.5))),
            ])
        default:
            return .object([
                ("type", .string("perform")), ("id", .int(id)), ("extension", .string("fuzz.action")),
                ("items", .array([.object([("type", .string("public.text")), ("value", .string("hi"))])])),
            ])
        }
    }
}

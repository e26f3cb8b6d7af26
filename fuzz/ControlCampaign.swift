import ControlProtocol

// control.sock: one request per connection, as supervisorctl sends them, mutated.
extension Campaigns {
    mutating func control(budget: Int) throws -> CampaignResult {
        var result = CampaignResult()
        /// Connections whose bytes hold no whole request: the daemon answers them with an
        /// error once its request timeout passes.
        var waiting: [(peer: Peer, sent: ContinuousClock.Instant, line: [UInt8])] = []
        while result.messages < budget && timeLeft {
            guard let peer = Peer.connect(to: target.daemon.controlSocket, errorMarker: Peer.controlError) else {
                try target.check("control.sock connect")
                continue
            }
            result.connections += 1
            let request = controlRequest()
            let mutate = mutator.chance(0.4)
            let line = mutate ? mutator.mutatedLine(request) : request.line
            if mutate { result.mutated += 1 }
            result.messages += 1
            for write in mutator.interleave([line]) where !peer.write(write) { break }
            if !Self.holdsARequest(line) && line.count <= ControlLimits.requestBytes {
                waiting.append((peer, .now, line))
                if waiting.count >= 64 { try Self.collect(&waiting, into: &result) }
            } else {
                // Generous: a million-message run shares the machine with builds and benchmarks.
                peer.read(timeout: 30_000)
                Self.tally(peer, line, into: &result)
            }
            if result.messages % Self.batch == 0 { try target.check("control.sock request \(result.messages)") }
        }
        try Self.collect(&waiting, into: &result)
        try target.check("the end of the control.sock campaign")
        return result
    }

    /// Whether `bytes` complete a line that is not blank: what the daemon's framer takes
    /// as a request (a flipped line feed or an empty line leaves it waiting for more).
    static func holdsARequest(_ bytes: [UInt8]) -> Bool {
        var blank = true
        for byte in bytes {
            switch byte {
            case 0x0A: if !blank { return true }
            case 0x20, 0x09, 0x0D: break
            default: blank = false
            }
        }
        return false
    }

    /// Waits for the answers the request timeout brings (10 s, with 30 s more to spare on a
    /// busy machine).
    private static func collect(_ waiting: inout [(peer: Peer, sent: ContinuousClock.Instant, line: [UInt8])], into result: inout CampaignResult) throws {
        for (peer, sent, line) in waiting {
            let left = (sent + .seconds(40)) - .now
            peer.read(timeout: Int32(max(100, left.components.seconds * 1000)))
            tally(peer, line, into: &result)
        }
        waiting.removeAll()
    }

    private static func tally(_ peer: Peer, _ line: [UInt8], into result: inout CampaignResult) {
        if peer.linesReceived > 0 {
            result.answers += 1
            if peer.errorsReceived > 0 { result.errorsAnswered += 1 }
        } else if !peer.isClosed || line.count <= ControlLimits.requestBytes {
            // Every request gets an answer, an error at least (an oversized one may be
            // refused before it is read to its end).
            result.noteUnanswered(line)
        } else {
            result.closedByDaemon += 1
        }
        peer.close()
    }

    private mutating func controlRequest() -> JSONText {
        func request(_ command: String, _ names: [String] = [], _ options: [(String, String)] = []) -> JSONText {
            .object([
                ("command", .string(command)), ("names", .array(names.map(JSONText.string))),
                ("options", .object(options.map { ($0.0, JSONText.string($0.1)) })),
            ])
        }
        switch mutator.int(0...13) {
        case 0: return request("status")
        case 1: return request("stats", ["fuzz.echo"])
        case 2: return request("events", [], [("count", String(mutator.int(-5...2000)))])
        case 3: return request("tail", ["panel"], [("lines", String(mutator.int(-5...500)))])
        case 4: return request("pull", ["fuzz.echo"], [("mode", mutator.pick(["compact", "expanded", "huge"]))])
        case 5: return request("refresh", ["fuzz.echo"])
        case 6: return request(mutator.pick(["enable", "enable", "disable"]), ["fuzz.echo"])
        case 7: return request("defaults", ["group.fuzz", mutator.pick(["get", "list", "set", "remove"]), "k", "1"])
        case 8: return request("open", [mutator.pick(["fuzz://x", "nope://y", "not a url"])])
        case 9: return request("version")
        case 10: return request("pressure")
        case 11: return request(mutator.pick(["start", "restart", "stop"]), ["panel"])
        case 12: return request("perform", ["fuzz.action", "public.text=/tmp/x"])
        default: return request("events", [], [("count", "10"), ("follow", "true")])
        }
    }
}

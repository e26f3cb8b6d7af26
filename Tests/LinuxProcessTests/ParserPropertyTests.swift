import ExtensiondTestSupport
import Testing

@testable import LinuxProcess

/// The /proc parsers over many random inputs: valid texts round-trip, and
/// anything else is a `malformed` error, never a crash.
@Suite struct ParserPropertyTests {
    static let alphabet = Array("abcVmRSsAnon:kB 0123456789\t\n/,=-_.")

    private func garbage(_ random: inout SeededRandom) -> String {
        String((0..<Int.random(in: 0...120, using: &random)).map { _ in Self.alphabet.randomElement(using: &random)! })
    }

    @Test(arguments: 0..<8)
    func cgroupMembershipsRoundTrip(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let pool = ["memory", "pids", "cpu", "cpuacct", "name=systemd"]
        for _ in 0..<200 {
            let memberships = (0..<Int.random(in: 0...10, using: &random)).map { index in
                let unified = index == 0 && Bool.random(using: &random)
                let segments = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    String((0..<Int.random(in: 1...8, using: &random)).map { _ in Array("az09.:-_").randomElement(using: &random)! })
                }
                return CgroupMembership(
                    hierarchyID: unified ? 0 : Int.random(in: 1...15, using: &random),
                    controllers: unified ? [] : Array(pool.shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random))),
                    path: "/" + segments.joined(separator: "/")
                )
            }
            let text = memberships.map { "\($0.hierarchyID):\($0.controllers.joined(separator: ",")):\($0.path)\n" }.joined()
            #expect(try CgroupMembership.parse(text, path: "p") == memberships)
        }
    }

    @Test(arguments: 0..<8)
    func statusRoundTrips(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            let anonymous = UInt64.random(in: 0...(1 << 30), using: &random)
            let resident = anonymous + UInt64.random(in: 0...(1 << 30), using: &random)
            let padding = String(repeating: " ", count: Int.random(in: 0...8, using: &random))
            let text = "Name:\tx\nVmRSS:\t\(padding)\(resident) kB\nRssAnon:\t\(padding)\(anonymous) kB\nThreads:\t1\n"
            #expect(try ProcessMemory.parse(status: text, path: "p") == ProcessMemory(residentBytes: resident * 1024, anonymousBytes: anonymous * 1024))
        }
    }

    @Test(arguments: 0..<8)
    func garbageIsAMalformedErrorOrAValidReading(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<500 {
            let text = garbage(&random)
            do {
                let memberships = try CgroupMembership.parse(text, path: "p")
                #expect(memberships.allSatisfy { $0.path.hasPrefix("/") })
            } catch {
                #expect(error.description.hasPrefix("p: expected"))
            }
            do {
                _ = try ProcessMemory.parse(status: text, path: "p")
                #expect(text.contains("VmRSS:") && text.contains("RssAnon:"))
            } catch {
                #expect(error.description.hasPrefix("p: expected"))
            }
        }
    }
}

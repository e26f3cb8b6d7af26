import ExtensiondTestSupport
import Testing

@testable import Cgroup

/// mountinfo parsing over many random inputs.
@Suite struct MountParsingPropertyTests {
    @Test(arguments: 0..<8)
    func cgroupMountsRoundTripWithEscapes(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            let mounts = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                let name = String((0..<Int.random(in: 1...10, using: &random)).map { _ in Array("ab c\\d\t").randomElement(using: &random)! })
                let unified = Bool.random(using: &random)
                return CgroupDetection.Mount(
                    mountPoint: "/sys/fs/cgroup/\(name)", root: "/", isUnified: unified,
                    controllers: unified ? ["rw"] : ["rw", ["memory", "pids", "cpu"].randomElement(using: &random)!]
                )
            }
            let escape: (String) -> String = { path in
                path.unicodeScalars.map { scalar in
                    switch scalar {
                    case " ": "\\040"
                    case "\t": "\\011"
                    case "\\": "\\134"
                    default: String(scalar)
                    }
                }.joined()
            }
            let text = mounts.enumerated().map { index, mount in
                let type = mount.isUnified ? "cgroup2" : "cgroup"
                return
                    "\(30 + index) 23 0:\(index) \(mount.root) \(escape(mount.mountPoint)) rw,relatime shared:\(index) - \(type) \(type) \(mount.controllers.joined(separator: ","))"
            }.joined(separator: "\n")
            let noise = "25 1 0:5 / /proc rw - proc proc rw\n"
            #expect(CgroupDetection.parseMounts(noise + text) == mounts)
        }
    }

    @Test(arguments: 0..<8)
    func garbageNeverCrashes(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let alphabet = Array("0123456789 -/\\cgroup2memory,\n")
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 0...200, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            for mount in CgroupDetection.parseMounts(text) {
                #expect(!mount.mountPoint.isEmpty)
            }
        }
    }
}

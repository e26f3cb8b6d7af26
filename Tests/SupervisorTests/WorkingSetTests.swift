import Cgroup
import ExtensiondTestSupport
import Testing

@testable import Pressure

@Suite struct WorkingSetTests {
    @Test func readsOnlyTheKeysAskedFor() {
        let stat = "cache 4096\nrss 1048576\nbogus\nrss_huge x\nfile_mapped 7\nfile 9\nbig 18446744073709551616\nlast 5"
        #expect(WorkingSet.values(of: ["rss", "cache", "missing"], inStat: stat) == [1_048_576, 4096, nil])
        // A key that begins another is matched whole; bad or overflowing numbers are nil.
        #expect(WorkingSet.values(of: ["file", "file_mapped", "rss_huge", "big"], inStat: stat) == [9, 7, nil, nil])
        #expect(WorkingSet.values(of: ["last", "bogus", ""], inStat: stat) == [5, nil, nil])
        #expect(WorkingSet.values(of: ["rss"], inStat: "") == [nil])
        #expect(WorkingSet.values(of: ["rss"], inStat: "rss \n\n\nrss 3\n") == [3])
    }

    @Test func v1SubtractsTheHierarchysUnmappedCache() {
        // Only the hierarchy's totals count, not the root's own figures.
        let stat = "cache 1\ntotal_cache 500\ntotal_shmem 100\ntotal_mapped_file 50\ntotal_rss 400\n"
        #expect(WorkingSet.bytes(usage: 1000, stat: stat, version: .v1) == 650)
    }

    @Test func v2SubtractsUnmappedCache() {
        let stat = "anon 400\nfile 500\nshmem 100\nfile_mapped 50\nfile_dirty 300\n"
        #expect(WorkingSet.bytes(usage: 1000, stat: stat, version: .v2) == 650)
    }

    /// While the throttle holds usage (v2) the usage counts whole: the cache the kernel has
    /// not dropped there is not dropping fast enough; otherwise the unmapped cache is
    /// subtracted. Read from a tree's files: the root's usage and `memory.stat`, and whether
    /// `supervised` (where the throttle is; the daemon is not in it) is at its `memory.high`
    /// (`max`: no throttle). Against a fake v2 tree: these machines have no v2 memory
    /// controller. Before `supervised`, the root's own `memory.high` decided; it no longer may.
    @Test func aV2ReadingWhileSupervisedIsAtItsThrottleIsTheUsage() throws {
        let fake = try FakeCgroupTree()
        let reader = WorkingSetReader(tree: CgroupTree(unifiedRoot: fake.root))
        fake.write("anon 400\nfile 500\nshmem 100\nfile_mapped 50\n", to: "memory.stat")
        fake.write("1000\n", to: "memory.current")
        fake.write("1000\n", to: "memory.high")
        fake.write("900\n", to: "supervised/memory.current")
        #expect(reader.read()?.workingSet == 650)
        fake.write("900\n", to: "supervised/memory.high")
        #expect(reader.read()?.workingSet == 1000)
        fake.write("901\n", to: "supervised/memory.high")
        #expect(reader.read()?.workingSet == 650)
        fake.write("max\n", to: "supervised/memory.high")
        #expect(reader.read()?.workingSet == 650)
    }

    /// The reader keeps the tree's files open and re-reads them (`pread`): each reading is of
    /// the files as they are then, a file it could not open is opened at a later reading, and
    /// a `memory.stat` longer than a read chunk is read whole. Against a fake v2 tree, these
    /// machines having no v2 memory controller; the fake rewrites files in place, as the
    /// kernel regenerates them.
    @Test func keptOpenFilesReadWhatTheyHoldNow() throws {
        let fake = try FakeCgroupTree()
        let reader = WorkingSetReader(tree: CgroupTree(unifiedRoot: fake.root))
        #expect(reader.read() == nil)  // no usage file yet
        fake.write("1000\n", to: "memory.current")
        fake.write("900\n", to: "supervised/memory.current")
        #expect(reader.read() == WorkingSet.Reading(usage: 1000, workingSet: 1000))  // no memory.stat yet
        fake.write("file 300\nshmem 0\nfile_mapped 0\n", to: "memory.stat")
        #expect(reader.read() == WorkingSet.Reading(usage: 1000, workingSet: 700))
        fake.write("2000\n", to: "memory.current")
        fake.write("file 100\n", to: "memory.stat")
        #expect(reader.read() == WorkingSet.Reading(usage: 2000, workingSet: 1900))
        fake.write("900\n", to: "supervised/memory.high")
        #expect(reader.read() == WorkingSet.Reading(usage: 2000, workingSet: 2000))
        fake.write("max\n", to: "supervised/memory.high")
        // Lines past the first 16 KiB chunk are read too.
        let padding = (0..<2000).map { "pad\($0) 1\n" }.joined()
        fake.write(padding + "file 500\n", to: "memory.stat")
        #expect(reader.read() == WorkingSet.Reading(usage: 2000, workingSet: 1500))
    }

    /// The usage is read before and after `memory.stat`: cache the kernel drops in between
    /// (a host writing files at the tree's hard limit) must not count as working set. Cache
    /// written in between makes it read low until the next reading, never high.
    @Test func cacheMovingBetweenTheReadsNeverInflatesTheWorkingSet() {
        let stat = "total_cache 200\ntotal_shmem 0\ntotal_mapped_file 0\n"
        // 700 of memory and 500 of cache; 300 of the cache dropped before `memory.stat`.
        #expect(WorkingSet.reading(usage: 1200, stat: stat, usageAfter: 900, version: .v1).workingSet == 700)
        #expect(WorkingSet.reading(usage: 1200, stat: stat, usageAfter: 900, version: .v1).usage == 1200)
        // 300 of cache written after the usage was read, counted in `memory.stat`: low, not high.
        let grown = "total_cache 500\n"
        #expect(WorkingSet.reading(usage: 900, stat: grown, usageAfter: 1200, version: .v1).workingSet == 400)
        #expect(WorkingSet.reading(usage: 900, stat: stat, usageAfter: 900, version: .v1).workingSet == 700)
    }

    @Test func neverBelowZeroAndUsageWithoutFigures() {
        #expect(WorkingSet.bytes(usage: 100, stat: "total_cache 300\n", version: .v1) == 0)
        #expect(WorkingSet.bytes(usage: 100, stat: "total_cache 10\ntotal_shmem 20\n", version: .v1) == 100)
        #expect(WorkingSet.bytes(usage: 100, stat: "", version: .v1) == 100)
    }
}

import Cgroup
import Testing

@testable import Pressure

@Suite struct WorkingSetTests {
    @Test func readsTheKeyValueLines() {
        #expect(WorkingSet.values(inStat: "cache 4096\nrss 1048576\nbogus\nrss_huge x\n") == ["cache": 4096, "rss": 1_048_576])
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

    @Test func neverBelowZeroAndUsageWithoutFigures() {
        #expect(WorkingSet.bytes(usage: 100, stat: "total_cache 300\n", version: .v1) == 0)
        #expect(WorkingSet.bytes(usage: 100, stat: "total_cache 10\ntotal_shmem 20\n", version: .v1) == 100)
        #expect(WorkingSet.bytes(usage: 100, stat: "", version: .v1) == 100)
    }
}

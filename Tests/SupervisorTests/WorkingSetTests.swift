import Cgroup
import Testing
@testable import Supervisor

@Suite struct WorkingSetTests {
    @Test func readsTheKeyValueLines() {
        #expect(WorkingSet.values(inStat: "cache 4096\nrss 1048576\nbogus\nrss_huge x\n") == ["cache": 4096, "rss": 1_048_576])
    }

    @Test func v1SubtractsTheHierarchysInactiveFileCache() {
        let stat = "inactive_file 1\ntotal_inactive_file 300\ntotal_active_file 50\ntotal_dirty 0\n"
        #expect(WorkingSet.bytes(usage: 1000, stat: stat, version: .v1) == 700)
    }

    @Test func dirtyPagesCountAsCacheOnlyUpToTheActiveList() {
        let stat = "total_inactive_file 300\ntotal_active_file 50\ntotal_dirty 80\ntotal_writeback 20\n"
        #expect(WorkingSet.bytes(usage: 1000, stat: stat, version: .v1) == 650)
        let v2 = "inactive_file 300\nactive_file 500\nfile_dirty 80\nfile_writeback 20\n"
        #expect(WorkingSet.bytes(usage: 1000, stat: v2, version: .v2) == 600)
    }

    @Test func neverBelowZero() {
        #expect(WorkingSet.bytes(usage: 100, stat: "total_inactive_file 300\n", version: .v1) == 0)
        #expect(WorkingSet.bytes(usage: 100, stat: "", version: .v1) == 100)
    }
}

import Testing
@testable import Supervisor

@Suite struct WorkingSetTests {
    @Test func findsAKeyOfMemoryStat() {
        let stat = "cache 4096\nrss 1048576\ntotal_inactive_file 8192\ninactive_file 4096\n"
        #expect(WorkingSet.value(of: "total_inactive_file", inStat: stat) == 8192)
        #expect(WorkingSet.value(of: "inactive_file", inStat: stat) == 4096)
        #expect(WorkingSet.value(of: "active_file", inStat: stat) == nil)
        #expect(WorkingSet.value(of: "rss", inStat: "rss twelve\n") == nil)
    }
}

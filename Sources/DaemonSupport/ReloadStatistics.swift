/// Config reloads so far (SIGHUP, `reload`, `update`): how many applied, how many failed
/// (the running config kept), and how long the last one took, for `/metrics`.
package struct ReloadStatistics {
    package private(set) var applied = 0
    package private(set) var failed = 0
    package private(set) var lastDuration: Duration?

    package init() {}

    package mutating func record(succeeded: Bool, after duration: Duration) {
        if succeeded { applied += 1 } else { failed += 1 }
        lastDuration = duration
    }
}

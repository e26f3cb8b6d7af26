/// The hosts that may have bytes waiting for them (queued on the socket or held back), so
/// that checking ``HostLimits`` after a pull looks at the hosts written to since the last
/// check, not at every connected host. A host joins at each write and leaves once a check
/// finds nothing waiting for it: a host outside the list has nothing waiting, as only a
/// write adds bytes.
///
/// For the same reason a check is needed only once the bytes written since the last one
/// could carry a host or all of them past a limit: until then the hosts are not even read.
final class WaitingHosts {
    private(set) var hosts: [ConnectedHost] = []
    /// Bytes written to hosts since the last check, and what that check left waiting: the
    /// most for one host and the sum.
    private var writtenSinceCheck = 0
    private var mostAfterCheck = 0
    private var totalAfterCheck = 0

    /// `byteCount` bytes were written to `host` (its ``ConnectedHost/isWaiting`` keeps it
    /// in the list once).
    func note(_ host: ConnectedHost, byteCount: Int) {
        writtenSinceCheck += byteCount
        guard !host.isWaiting else { return }
        host.isWaiting = true
        hosts.append(host)
    }

    /// Whether a host may have more than `perHost` bytes waiting, or all together more than
    /// `total`: each has at most what the last check found plus every byte written since.
    func mayExceed(perHost: Int, total: Int) -> Bool {
        mostAfterCheck + writtenSinceCheck > perHost || totalAfterCheck + writtenSinceCheck > total
    }

    /// A check is over: the hosts it left hold `total` bytes, none more than `most`.
    func checked(most: Int, total: Int) {
        (mostAfterCheck, totalAfterCheck, writtenSinceCheck) = (most, total, 0)
    }

    /// A closed host leaves at once: the list must not keep its connection (and socket) open.
    func remove(_ host: ConnectedHost) {
        guard host.isWaiting else { return }
        host.isWaiting = false
        hosts.removeAll { $0 === host }
    }

    /// Drops the hosts with nothing waiting any more, and closed ones (no longer served).
    func dropDrained() {
        hosts.removeAll { host in
            let drained = host.connection?.isOpen != true || host.queuedByteCount == 0
            if drained { host.isWaiting = false }
            return drained
        }
    }
}

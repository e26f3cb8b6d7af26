/// The hosts that may have bytes waiting for them (queued on the socket or held back), so
/// that checking ``HostLimits`` after a pull looks at the hosts written to since the last
/// check, not at every connected host. A host joins at each write and leaves once a check
/// finds nothing waiting for it and nothing held for the loop's writes: a host outside the
/// list has nothing waiting, as only a write adds bytes.
final class WaitingHosts {
    private(set) var hosts: [ConnectedHost] = []

    /// `host` was written to (its ``ConnectedHost/isWaiting`` keeps it in the list once).
    func note(_ host: ConnectedHost) {
        guard !host.isWaiting else { return }
        host.isWaiting = true
        hosts.append(host)
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
            let drained = host.connection.map { !$0.isOpen || (host.queuedByteCount == 0 && !$0.isHolding) } ?? true
            if drained { host.isWaiting = false }
            return drained
        }
    }
}

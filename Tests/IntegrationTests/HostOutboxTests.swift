import ControlProtocol
import ExtensiondTestSupport
import Foundation
import Glibc
import HostProtocol
import Testing

/// Hosts that read slowly or not at all cost the daemon a bounded amount of memory
/// (issue 8, case 3; the bounds are in docs/PROTOCOL.md, "Limits").
@Suite struct HostOutboxTests {
    static func bed(extensions: Int) throws -> ExtensionTestBed {
        let bed = try ExtensionTestBed()
        // Every snapshot carries 500 KB, so that a few pushes are megabytes.
        let command = try EchoExtension.command(in: bed.daemon.directory, name: "big.py", padding: 500_000, reload: "never")
        let tables = (0..<extensions).map {
            ExtensionTestBed.extensionTable("big\($0)", command: command, refresh: "pull_cooldown = \"0s\"")
        }
        try bed.start(tables.joined())
        return bed
    }

    /// Refreshes `id` `count` times, each time waiting for the new snapshot (counted by
    /// `stats`: a pull would carry the 500 KB).
    static func refresh(_ bed: ExtensionTestBed, _ id: String, times count: Int, between: () throws -> Void = {}) throws {
        for _ in 0..<count {
            let before = try bed.stats(id)?.resultsNewData ?? 0
            #expect(try bed.control(.refresh(NameSelection([id]))).ok)
            #expect(try eventually(timeout: 10) { (try bed.stats(id)?.resultsNewData ?? 0) > before })
            try between()
        }
    }

    @Test func aHostThatReadsSlowlyGetsTheLatestSnapshotAndTheDaemonStaysSmall() throws {
        let bed = try Self.bed(extensions: 1)
        let host = try RawHost(path: bed.daemon.hostSocket)
        try host.send(.subscribe(.init(id: RequestID(rawValue: 1), extensions: ["big0"])))
        try Self.refresh(bed, "big0", times: 3)
        let before = try #require(bed.daemon.residentBytes)

        // 120 pushes of 500 KB (60 MB); the host reads 100 KB after each.
        try Self.refresh(bed, "big0", times: 120) { _ = host.read(upTo: 100_000) }
        let grown = Int64(try #require(bed.daemon.residentBytes)) - Int64(before)
        #expect(grown < 24 << 20, "the daemon grew by \(grown >> 20) MiB for one slow host")

        let latest = try bed.pull("big0").version
        let versions = host.drainSnapshotVersions()
        #expect(versions.last == latest, "the host's last push is version \(versions.last ?? 0), the extension is at \(latest)")
        #expect(versions == versions.sorted())
        #expect(try bed.control(.events(LogRequest(lines: 1000))).events?.contains { $0.reason == "host-behind" } == false)
    }

    @Test func fortyHostsThatNeverReadStayWithinTheTotal() throws {
        let bed = try Self.bed(extensions: 4)
        let extensions = (0..<4).map { "big\($0)" }
        let hosts = try (0..<40).map { _ in try RawHost(path: bed.daemon.hostSocket) }
        for host in hosts { try host.send(.subscribe(.init(id: nil, extensions: extensions))) }
        for id in extensions { try Self.refresh(bed, id, times: 1) }
        let before = try #require(bed.daemon.residentBytes)

        for round in 0..<8 {
            for id in extensions { try Self.refresh(bed, id, times: 1) }
            #expect(bed.daemon.process?.isRunning == true, "round \(round)")
        }
        let grown = Int64(try #require(bed.daemon.residentBytes)) - Int64(before)
        // 32 MiB in all (HostOutboxLimits.total) plus the allocator's slack.
        #expect(grown < 48 << 20, "40 hosts that never read grew the daemon by \(grown >> 20) MiB")
        let events = try bed.control(.events(LogRequest(lines: 1000))).events ?? []
        let disconnected = events.filter { $0.reason == "host-behind" }
        #expect(!disconnected.isEmpty && disconnected.count < 40, "\(disconnected.count) hosts disconnected")
        // A disconnected host is told why if it reads within the farewell timeout, and closed.
        let ended = hosts.filter { host in host.drainErrors().contains { $0.contains("disconnected") } || host.closedByDaemon }
        #expect(ended.count == disconnected.count)
        #expect(try bed.control(.status(NameSelection([]))).ok)
    }

    /// Coalescing keeps one snapshot per extension; 20 extensions of 500 KB are still past
    /// one host's 8 MiB, so a host that never reads them is disconnected, and told why.
    @Test func oneHostPastItsOwnLimitIsDisconnected() throws {
        let bed = try Self.bed(extensions: 20)
        let extensions = (0..<20).map { "big\($0)" }
        let host = try RawHost(path: bed.daemon.hostSocket)
        let reader = try RawHost(path: bed.daemon.hostSocket)
        try host.send(.subscribe(.init(id: nil, extensions: extensions)))
        try reader.send(.subscribe(.init(id: nil, extensions: extensions)))
        var received = 0
        for id in extensions {
            try Self.refresh(bed, id, times: 1)
            received += reader.drainSnapshotVersions().count
        }
        let events = try bed.control(.events(LogRequest(lines: 1000))).events ?? []
        let disconnected = events.filter { $0.reason == "host-behind" }
        #expect(disconnected.count == 1, "\(disconnected.map(\.message))")
        #expect(disconnected.first?.message.contains("more than \(8 << 20) bytes waiting for it") == true)
        #expect(eventually { host.drainErrors().contains { $0.contains("disconnected") } || host.closedByDaemon })
        // The host that reads got every push.
        #expect(received == 20)
        #expect(bed.daemon.process?.isRunning == true)
    }
}

/// A host socket read by hand: little at a time, or all at the end.
final class RawHost {
    let fd: Int32
    private var pending: [UInt8] = []
    /// The daemon closed the connection (end of stream).
    private(set) var closedByDaemon = false

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw TestSupportError("connect \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    func send(_ message: HostToSupervisor) throws {
        let line = message.encodedLine()
        guard line.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count else {
            throw TestSupportError("send on host.sock: \(String(cString: strerror(errno)))")
        }
    }

    /// Reads what is there, at most `limit` bytes, without waiting; returns the count.
    @discardableResult
    func read(upTo limit: Int, timeout: Int32 = 0) -> Int {
        var chunk = [UInt8](repeating: 0, count: limit)
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, timeout) == 1 else { return 0 }
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count == 0 { closedByDaemon = true }
        guard count > 0 else { return 0 }
        pending += chunk[..<count]
        return count
    }

    /// Reads until nothing comes for half a second, then decodes every whole line.
    private func drainLines() -> [SupervisorToHost] {
        while read(upTo: 1 << 20, timeout: 500) > 0 {}
        var messages: [SupervisorToHost] = []
        var framer = LineFramer()
        try? framer.append(pending)
        pending.removeAll()
        while let line = try? framer.nextLine() {
            if let message = try? SupervisorToHost.decode(line: line) { messages.append(message) }
        }
        return messages
    }

    func drainSnapshotVersions() -> [UInt64] {
        drainLines().compactMap { if case .snapshot(let snapshot) = $0 { snapshot.version } else { nil } }
    }

    func drainErrors() -> [String] {
        drainLines().compactMap { if case .error(let error) = $0 { error.error } else { nil } }
    }
}

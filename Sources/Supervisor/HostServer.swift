import EventLoop
import ExtensiondPolicy
import Glibc
import WireProtocol

/// Serves `host.sock`: hosts list extensions, pull snapshots, subscribe to pushes and
/// run actions. A malformed message gets an `error` and ends that connection only.
final class HostServer {
    private let loop: EventLoop
    private let extensions: ExtensionCoordinator
    private var listener: Listener?
    private var connections: [Int32: HostConnection] = [:]

    /// Binds `path` with mode 0660, like the control socket.
    init(loop: EventLoop, path: String, extensions: ExtensionCoordinator) throws(SystemError) {
        self.loop = loop
        self.extensions = extensions
        listener = try Listener(loop: loop, path: path, mode: 0o660) { [unowned self] fd in self.accept(fd) }
    }

    func close() {
        listener?.close()
        listener = nil
        for host in connections.values { host.connection?.close() }
        connections.removeAll()
    }

    /// Sends `snapshot` to every host subscribed to its extension.
    func push(_ snapshot: SupervisorToHost.Snapshot) {
        let line = SupervisorToHost.snapshot(snapshot).encodedLine()
        for host in connections.values where host.subscriptions.contains(snapshot.extensionID) {
            host.connection?.send(line)
        }
    }

    /// Sends `message` to every connected host.
    func broadcast(_ message: SupervisorToHost) {
        let line = message.encodedLine()
        for host in connections.values { host.connection?.send(line) }
    }

    private func accept(_ fd: Int32) {
        let host = HostConnection()
        do {
            host.connection = try Connection(
                loop: loop, fd: fd,
                onData: { [unowned self, unowned host] _, bytes in self.receive(bytes, from: host) },
                onClose: { [unowned self] connection in self.connections.removeValue(forKey: connection.fd) }
            )
            connections[fd] = host
        } catch {
            Glibc.close(fd)
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, from host: HostConnection) {
        do throws(ProtocolError) {
            try host.framer.append(bytes)
            while host.connection?.isOpen == true, let line = try host.framer.nextLine() {
                handle(try HostToSupervisor.decode(line: line), from: host)
            }
        } catch {
            host.send(.error(.init(id: nil, error: error.description)))
            host.connection?.closeWhenFlushed()
        }
    }

    private func handle(_ message: HostToSupervisor, from host: HostConnection) {
        switch message {
        case .list(let request):
            let infos = extensions.records.values.sorted { $0.id < $1.id }.map {
                SupervisorToHost.ExtensionInfo(id: $0.id, app: $0.spec.app, point: $0.spec.point.rawValue,
                                               enabled: $0.enabled, hasContent: $0.hasContent)
            }
            host.send(.extensions(.init(id: request.id, extensions: infos)))
        case .pull(let request):
            do {
                try extensions.pull(request.extensionID, mode: request.mode, maxSize: request.maxSize) { [weak host] outcome in
                    host?.send(.snapshot(outcome.snapshot(id: request.id, extensionID: request.extensionID)))
                }
            } catch {
                host.send(.error(.init(id: request.id, error: error.description)))
            }
        case .subscribe(let request):
            if let unknown = request.extensions.first(where: { extensions.records[$0] == nil }) {
                return host.send(.error(.init(id: request.id, error: RequestRejection.unknown(unknown).description)))
            }
            host.subscriptions.formUnion(request.extensions)
        case .perform(let request):
            do {
                try extensions.perform(request.extensionID, items: request.items) { [weak host] outcome in
                    switch outcome {
                    case .completed(let items): host?.send(.completed(.init(id: request.id, items: items)))
                    case .failed(let reason): host?.send(.error(.init(id: request.id, error: reason)))
                    }
                }
            } catch {
                host.send(.error(.init(id: request.id, error: error.description)))
            }
        }
    }
}

/// One host's connection and subscriptions.
final class HostConnection {
    fileprivate(set) var connection: Connection?
    fileprivate var framer = LineFramer()
    fileprivate(set) var subscriptions: Set<String> = []

    func send(_ message: SupervisorToHost) {
        connection?.send(message.encodedLine())
    }
}

extension PullOutcome {
    /// The `snapshot` message answering pull `id`.
    func snapshot(id: RequestID?, extensionID: String) -> SupervisorToHost.Snapshot {
        SupervisorToHost.Snapshot(
            id: id, extensionID: extensionID, result: result, snapshot: state.snapshot?.payload,
            version: state.snapshot?.version ?? 0,
            ageMs: UInt64(max(0, (state.age ?? .zero).wholeMicroseconds / 1000)),
            stale: state.isStale, error: state.error)
    }
}

import ExtensiondTestSupport
import Foundation
import HostProtocol

/// A real daemon with one gallery widget (``ScriptedExtension/Behaviour/gallery``), the
/// managing host `today` and the place `lock_screen`. `today` is a real supervised host
/// with `manage = true` that relays one connection of the test to host.sock (the relay of
/// ``AppSideTests``): the test speaks as the Today view's edit mode.
final class GalleryBed {
    static let widget = "test.app.weather"
    static let other = "test.app.resize"

    let bed: ExtensionTestBed
    var daemon: TestDaemon { bed.daemon }

    /// The widget's gallery keys, as docs/CONFIG.md shows them.
    static let galleryKeys = """
        display_name = { default = "Weather", "zh-CN" = "天气" }
        description = { default = "The weather in one city.", "zh-CN" = "一个城市的天气。" }
        preview = { type = "AdaptiveCard", version = "1.5", body = [{ type = "TextBlock", text = "Paris 21°" }] }
        parameters = [{ name = "city", type = "choice", choices = ["Paris", "Beijing"], default = "Beijing" }]
        """

    /// `extra` tables follow the others (such as `[defaults]`).
    init(refresh: String = "pull_cooldown = \"0s\"", hostLines: String = "", extra: String = "") throws {
        bed = try ExtensionTestBed()
        let relay = try bed.daemon.directory.write("relay.py", AppSideTests.relayApp)
        let updates = bed.countFile(Self.widget)
        try bed.start(
            ExtensionTestBed.extensionTable(
                Self.widget, command: try bed.command(.gallery, countFile: updates), settings: Self.galleryKeys, refresh: refresh)
                + ExtensionTestBed.extensionTable(Self.other, point: "action", command: try bed.command(.action))
                + Self.hostAndPlaces(relay: relay, shared: bed.daemon.sharedDirectory, hostLines: hostLines) + extra)
    }

    static func hostAndPlaces(relay: String, shared: String, hostLines: String) -> String {
        """
        [hosts.today]
        command = ["/usr/bin/python3", "-S", "\(relay)", "\(shared)/today.sock"]
        manage = true
        \(hostLines)

        [places.lock_screen]
        compact = "320x110"
        expanded = "320x396"

        """
    }

    /// A connection to host.sock through `today`: the daemon sees the managing host.
    func connectManager() throws -> TestHost { try Self.connectManager(daemon) }

    /// A connection to host.sock through the `today` of ``hostAndPlaces(relay:shared:hostLines:)`` of `daemon`.
    static func connectManager(_ daemon: TestDaemon) throws -> TestHost {
        let path = daemon.sharedDirectory + "/today.sock"
        guard eventually(timeout: 10, { FileManager.default.fileExists(atPath: path) }) else {
            throw TestSupportError("the host today did not open its relay socket")
        }
        return try TestHost(path: path)
    }

    /// The widget's updates, one line each: the reason, then the instance if any.
    var updates: [String] {
        ((try? String(contentsOfFile: bed.countFile(Self.widget), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Restarts the daemon, and with it the host `today` and its relay socket; `whileStopped`
    /// runs while no daemon does.
    func restart(whileStopped: () throws -> Void = {}) throws {
        try? FileManager.default.removeItem(atPath: daemon.sharedDirectory + "/today.sock")
        try bed.restart(whileStopped: whileStopped)
    }
}

extension TestHost {
    /// Sends `message` and returns the message answering it (its answer, or an error with its id).
    func request(_ message: HostToSupervisor) throws -> SupervisorToHost {
        try send(message)
        let id = message.requestID
        return try receive(timeout: 10) { $0.answerID == id && id != nil }
    }

    /// The list, as `list` answers it.
    func list(id: UInt64, locale: String? = nil, place: String? = nil) throws -> SupervisorToHost.Extensions {
        let answer = try request(.list(.init(id: RequestID(rawValue: id), locale: locale, place: place)))
        guard case .extensions(let list) = answer else { throw TestSupportError("expected extensions, got \(answer)") }
        return list
    }

    /// A pull that waits for the update, answered by a snapshot.
    func pullSnapshot(_ pull: HostToSupervisor.Pull) throws -> SupervisorToHost.Snapshot {
        let answer = try request(.pull(pull))
        guard case .snapshot(let snapshot) = answer else { throw TestSupportError("expected a snapshot, got \(answer)") }
        return snapshot
    }
}

extension SupervisorToHost {
    /// The result of a managing request (`enableResult` and the others).
    var manageResult: ManageResult? {
        switch self {
        case .enableResult(let result), .addInstanceResult(let result), .removeInstanceResult(let result), .arrangeResult(let result): result
        default: nil
        }
    }
}

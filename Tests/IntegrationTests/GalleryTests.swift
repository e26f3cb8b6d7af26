import ControlProtocol
import ExtensiondTestSupport
import Foundation
import HostProtocol
import Testing

/// The widget gallery against a real daemon (issue 22): what `list` tells, what a managing
/// host may do and others may not, instances the user adds, and the user's arrangement,
/// across restarts.
@Suite struct GalleryTests {
    static let widget = GalleryBed.widget

    @Test func listTellsTheGalleryInTheHostsLocale() throws {
        let gallery = try GalleryBed()
        let host = try gallery.daemon.connectHost()
        let chinese = try #require(try host.list(id: 1, locale: "zh-CN").extensions.first { $0.id == Self.widget })
        #expect(chinese.displayName == "天气" && chinese.description == "一个城市的天气。")
        #expect(chinese.preview == ["type": "AdaptiveCard", "version": "1.5", "body": [["type": "TextBlock", "text": "Paris 21°"]]])
        #expect(chinese.parameters == [.init(name: "city", type: "choice", defaultValue: "Beijing", choices: ["Paris", "Beijing"])])
        let french = try #require(try host.list(id: 2, locale: "fr_FR").extensions.first { $0.id == Self.widget })
        #expect(french.displayName == "Weather" && french.description == "The weather in one city.")
        // An action has no gallery keys: its entry is what a version-1 host knows.
        let action = try #require(try host.list(id: 3).extensions.first { $0.id == GalleryBed.other })
        #expect(action == .init(id: GalleryBed.other, app: ExtensionTestBed.app, point: "action", enabled: true, hasContent: true))
    }

    @Test func onlyAManagingHostMayEnableAndAddInstances() throws {
        let gallery = try GalleryBed()
        let external = try gallery.daemon.connectHost()
        for request: HostToSupervisor in [
            .enable(.init(id: 1, extensionID: Self.widget, enabled: false)),
            .addInstance(.init(id: 2, extensionID: Self.widget, instance: "paris", params: ["city": "Paris"])),
            .removeInstance(.init(id: 3, extensionID: Self.widget, instance: "paris")),
            .arrange(.init(id: 4, widgets: [.init(extensionID: Self.widget)])),
        ] {
            let result = try #require(try external.request(request).manageResult, "\(request.type)")
            #expect(!result.success && result.error?.contains("manage = true") == true, "\(result)")
        }
        #expect(try external.list(id: 5).extensions.first { $0.id == Self.widget }?.enabled == true)

        let manager = try gallery.connectManager()
        #expect(try manager.request(.enable(.init(id: 6, extensionID: Self.widget, enabled: false))) == .enableResult(.init(id: 6, success: true)))
        #expect(try external.list(id: 7).extensions.first { $0.id == Self.widget }?.enabled == false)
        let unknown = try #require(try manager.request(.enable(.init(id: 8, extensionID: "nope", enabled: true))).manageResult)
        #expect(!unknown.success && unknown.error == "unknown extension \"nope\"")
    }

    @Test func withEveryWidgetOffTheUserAddsEachAsOnIOS() throws {
        let gallery = try GalleryBed(extra: "[defaults]\nenabled = false\n")
        let host = try gallery.daemon.connectHost()
        #expect(try host.list(id: 1).extensions.allSatisfy { !$0.enabled })
        guard case .error(let refused) = try host.request(.pull(.init(id: 2, extensionID: Self.widget, mode: .compact, maxSize: Size(width: 320, height: 110))))
        else { throw TestSupportError("a disabled widget was pulled") }
        #expect(refused.error.contains("disabled"))
        let manager = try gallery.connectManager()
        #expect(
            try manager.request(.addInstance(.init(id: 3, extensionID: Self.widget, instance: "paris", params: ["city": "Paris"])))
                == .addInstanceResult(.init(id: 3, success: true)))
        #expect(try host.list(id: 4).extensions.first { $0.id == Self.widget }?.enabled == true)
        #expect(
            try host.pullSnapshot(
                .init(
                    id: 5, extensionID: Self.widget, mode: .compact, maxSize: Size(width: 320, height: 110),
                    wait: true, instance: "paris")
            ).result == .newData)
    }

    @Test func anAddedInstanceIsUpdatedWithItsParamsUntilItIsRemoved() throws {
        let gallery = try GalleryBed(refresh: "interval = \"1s\"\nmin_interval = \"1s\"\npull_cooldown = \"0s\"\ndaily_budget = 1000\nbudget_burst = 100")
        let manager = try gallery.connectManager()
        let added = try manager.request(.addInstance(.init(id: 1, extensionID: Self.widget, instance: "paris", params: ["city": "Paris"])))
        #expect(added == .addInstanceResult(.init(id: 1, success: true)))
        // The Today view shows it: its update carries the params the user chose.
        let shown = try manager.pullSnapshot(
            .init(
                id: 2, extensionID: Self.widget, mode: .compact, maxSize: Size(width: 320, height: 110),
                wait: true, instance: "paris"))
        #expect(try shown.snapshot?.decoded().member("params") == ["city": "Paris"], "\(shown)")
        try manager.send(.visible(.init(extensions: [.init(extensionID: Self.widget, instance: "paris")], visible: true)))
        #expect(eventually(timeout: 5) { gallery.updates.contains("schedule paris") }, "\(gallery.bed.diagnostics(Self.widget))")

        #expect(
            try manager.request(.removeInstance(.init(id: 3, extensionID: Self.widget, instance: "paris")))
                == .removeInstanceResult(.init(id: 3, success: true)))
        Thread.sleep(forTimeInterval: 0.3)
        let before = gallery.updates.filter { $0 == "schedule paris" }.count
        Thread.sleep(forTimeInterval: 2.5)
        #expect(gallery.updates.filter { $0 == "schedule paris" }.count == before, "\(gallery.updates)")
        let again = try #require(try manager.request(.removeInstance(.init(id: 4, extensionID: Self.widget, instance: "paris"))).manageResult)
        #expect(!again.success && again.error?.contains("no added instance") == true)
    }

    @Test func instancesAndTheArrangementSurviveARestart() throws {
        let gallery = try GalleryBed()
        do {
            let manager = try gallery.connectManager()
            for (id, city) in [(1, "Paris"), (2, "Beijing")] {
                let request = HostToSupervisor.AddInstance(
                    id: RequestID(rawValue: UInt64(id)), extensionID: Self.widget,
                    instance: city.lowercased(), params: ["city": .string(city)], place: "lock_screen")
                #expect(try manager.request(.addInstance(request)).manageResult?.success == true)
            }
            let order: [HostToSupervisor.Shown] = [.init(extensionID: Self.widget, instance: "beijing"), .init(extensionID: Self.widget, instance: "paris")]
            #expect(try manager.request(.arrange(.init(id: 3, place: "lock_screen", widgets: order))).manageResult?.success == true)
        }
        try gallery.restart()
        let manager = try gallery.connectManager()
        let list = try manager.list(id: 4, place: "lock_screen")
        #expect(list.arrangement == [.init(extensionID: Self.widget, instance: "beijing"), .init(extensionID: Self.widget, instance: "paris")])
        #expect(
            list.extensions.first { $0.id == Self.widget }?.instances == [
                .init(instance: "beijing", params: ["city": "Beijing"], place: "lock_screen"),
                .init(instance: "paris", params: ["city": "Paris"], place: "lock_screen"),
            ])
        #expect(try manager.list(id: 5).arrangement == nil)
        // Restored with its params and its place's size: a pull needs to name neither.
        let beijing = try manager.pullSnapshot(
            .init(
                id: 6, extensionID: Self.widget, mode: .expanded, maxSize: Size(width: 1, height: 1),
                wait: true, instance: "beijing"))
        let snapshot = try #require(try beijing.snapshot?.decoded())
        #expect(snapshot.member("params") == ["city": "Beijing"] && snapshot.member("maxSize") == ["width": 320, "height": 396], "\(snapshot)")
    }

    @Test func aPlaceBoundsTheUpdateAndClampsThePreferredSize() throws {
        let gallery = try GalleryBed()
        let host = try gallery.daemon.connectHost()
        let huge = Size(width: 9999, height: 9999)
        let clamped = try host.pullSnapshot(.init(id: 1, extensionID: Self.widget, mode: .compact, maxSize: huge, wait: true, place: "lock_screen"))
        #expect(try clamped.snapshot?.decoded().member("maxSize") == ["width": 320, "height": 110])
        #expect(clamped.preferredSize == Size(width: 320, height: 110))
        // A second result as large: clamped again, and the widget was told once.
        #expect(try gallery.bed.control(.refresh(NameSelection([Self.widget]))).ok)
        #expect(eventually { gallery.updates.count == 2 })
        #expect(try eventually { try gallery.bed.status(Self.widget)?.lastResult == "newData" && gallery.bed.eventReasons(.error, of: Self.widget).count == 1 })
        let refreshed = try host.pullSnapshot(.init(id: 2, extensionID: Self.widget, mode: .compact, maxSize: huge, place: "lock_screen"))
        #expect(refreshed.version == 2 && refreshed.preferredSize == Size(width: 320, height: 110), "\(refreshed)")
        #expect(try gallery.bed.eventReasons(.error, of: Self.widget) == ["preferred-size"])
        // A host that names no place gets what the widget asked for, as before.
        let unbounded = try host.pullSnapshot(.init(id: 3, extensionID: Self.widget, mode: .expanded, maxSize: huge, wait: true))
        #expect(unbounded.preferredSize == huge)
        guard case .error(let unknown) = try host.request(.pull(.init(id: 4, extensionID: Self.widget, mode: .compact, maxSize: huge, place: "moon")))
        else { throw TestSupportError("an unknown place was accepted") }
        #expect(unknown.error.contains("unknown place \"moon\"") && unknown.error.contains("lock_screen"))
    }

    @Test func aModeChangeSaysSoAndTheLargestModeIsListed() throws {
        let gallery = try GalleryBed()
        let host = try gallery.daemon.connectHost()
        let size = Size(width: 320, height: 110)
        let compact = try host.pullSnapshot(.init(id: 1, extensionID: Self.widget, mode: .compact, maxSize: size, wait: true))
        #expect(try compact.snapshot?.decoded().member("reason") == "pull")
        let expanded = try host.pullSnapshot(.init(id: 2, extensionID: Self.widget, mode: .expanded, maxSize: size, wait: true))
        #expect(try expanded.snapshot?.decoded().member("reason") == "modeChange")
        #expect(try host.list(id: 3).extensions.first { $0.id == Self.widget }?.largestMode == .compact)
    }

    @Test func anUnknownMessageIsAnsweredAndTheConnectionStays() throws {
        let gallery = try GalleryBed()
        let host = try gallery.daemon.connectHost()
        try host.send(bytes: Array(#"{"type":"hello","id":7,"from":"a later protocol"}"#.utf8) + [10])
        #expect(try host.receive() == .error(.init(id: 7, error: "unknown message type \"hello\"")))
        try host.send(bytes: Array(#"{"type":"hello"}"#.utf8) + [10])
        #expect(try host.receive() == .error(.init(id: nil, error: "unknown message type \"hello\"")))
        let snapshot = try host.pullSnapshot(.init(id: 8, extensionID: Self.widget, mode: .compact, maxSize: Size(width: 320, height: 110), wait: true))
        #expect(snapshot.result == .newData)
    }

    @Test func listShowsOnlyWhatTheHostMayUse() throws {
        let gallery = try GalleryBed(hostLines: "extensions = [\"\(Self.widget)\"]")
        let manager = try gallery.connectManager()
        #expect(try manager.list(id: 1).extensions.map(\.id) == [Self.widget])
        #expect(try gallery.daemon.connectHost().list(id: 2).extensions.map(\.id) == [GalleryBed.other, Self.widget])
        let refused = try #require(try manager.request(.enable(.init(id: 3, extensionID: GalleryBed.other, enabled: false))).manageResult)
        #expect(!refused.success && refused.error?.contains("hosts.today.extensions") == true, "\(refused)")
    }
}

extension JSONValue {
    /// The member `name` of an object.
    func member(_ name: String) -> JSONValue? {
        if case .object(let members) = self { members[name] } else { nil }
    }
}

import ExtensiondConfig
import Foundation
import Testing

/// The demo config that the README starts must stay valid.
@Suite struct ShippedConfigTests {
    /// `config/extensiond.toml`, found from this test file.
    static let path: String = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Tests/ExtensiondConfigTests/ShippedConfigTests.swift
        return components.joined(separator: "/") + "/config/extensiond.toml"
    }()

    static var repository: String { String(path.dropLast("/config/extensiond.toml".count)) }

    @Test func validatesAndDeclaresTheDemo() throws {
        let configuration = try ConfigurationLoader.load(path: Self.path)

        #expect(configuration.supervisor.runtimeDirectory == "/tmp/extensiond-demo/run")
        #expect(configuration.supervisor.stateDirectory == "/tmp/extensiond-demo/state")
        #expect(configuration.supervisor.memoryBudget == ByteSize(256 << 20))
        #expect(configuration.hosts.map(\.id) == ["demo.panel", "demo.today"])
        #expect(configuration.hosts.first?.launch.command == [Self.repository + "/.build/debug/DemoPanel"])
        #expect(
            configuration.hosts.last?.launch.command == [
                Self.repository + "/.build/debug/extensiond-today", "--listen", "127.0.0.1:8080",
                "--instance", "demo.weather=Paris", "--instance", "demo.weather=Beijing",
            ])

        let app = try #require(configuration.apps.first)
        #expect(configuration.apps.count == 1)
        #expect(app.id == "demo.app")
        #expect(app.launch.command == [Self.repository + "/.build/debug/DemoApp"])
        #expect(app.urlSchemes == ["demo"])
        #expect(app.groups == ["group.demo"])

        #expect(configuration.extensions.map(\.id).sorted() == ["demo.h5", "demo.weather", "demo.widget"])
        let widget = try #require(configuration.extensions.first { $0.id == "demo.widget" })
        #expect(widget.id == "demo.widget")
        #expect(widget.app == "demo.app")
        #expect(widget.point == .widget)
        #expect(widget.launch.command == [Self.repository + "/.build/debug/DemoWidget"])
        #expect(widget.limits.memoryMax == ByteSize(16 << 20))
        #expect(widget.limits.memoryHigh == ByteSize(12 << 20))
        #expect(widget.refresh.interval == .seconds(30))
        #expect(widget.refresh.minInterval == .seconds(15))
        #expect(widget.refresh.pullCooldown == .seconds(5))
        #expect(widget.refresh.deadline == .seconds(5))
        #expect(widget.cardTemplate == Self.repository + "/config/cards/clock.json")
        let weather = try #require(configuration.extensions.first { $0.id == "demo.weather" })
        #expect(weather.launch.command == [Self.repository + "/examples/weather-card/widget.py"])
        // The Python widgets import the repository's SDK, which their sandbox may read.
        #expect(weather.sandbox.read == [Self.repository + "/sdk/python"])
        // The Today view's edit mode shows it in the gallery and adds cities.
        #expect(configuration.hosts.last?.manage == true)
        #expect(weather.gallery.displayName?.text(for: "fr-FR") == "Météo")
        #expect(weather.gallery.preview?.contains("AdaptiveCard") == true)
        #expect(weather.gallery.parameters.map(\.name) == ["city"])
        #expect(configuration.extensions.first { $0.id == "demo.h5" }?.modes == [.compact])
        #expect(configuration.sources == [Self.path])
    }
}

/// The example in docs/CONFIG.md must load, so the documentation cannot drift from the schema.
@Suite struct DocumentedExampleTests {
    @Test func exampleLoads() throws {
        let markdown = try String(contentsOfFile: ShippedConfigTests.repository + "/docs/CONFIG.md", encoding: .utf8)
        let example = try #require(
            markdown.components(separatedBy: "```toml\n").last?.components(separatedBy: "```").first)
        let directory = try ConfigDirectory()
        let configuration = try directory.load(example)

        #expect(configuration.supervisor.metricsListen == "127.0.0.1:9464")
        #expect(configuration.pressure.psi?.kernelString == "some 150000 2000000")
        let widget = try #require(configuration.extensions.first)
        #expect(widget.limits.memoryMax == ByteSize(24 << 20))
        #expect(widget.idleExit == .seconds(30))
        #expect(configuration.apps.first?.urlSchemes == ["weather"])
        #expect(widget.gallery.displayName?.text(for: "zh-CN") == "天气" && widget.gallery.parameters.count == 1)
        #expect(configuration.hosts.first?.manage == true && configuration.places.map(\.id) == ["home"])
    }
}

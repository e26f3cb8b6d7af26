import ExtensiondConfig
import ExtensiondTestSupport
import Foundation

/// A throw-away directory of real config files, removed when the test ends.
final class ConfigDirectory {
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("extensiond-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` (which may contain directories) and returns the full path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The main file, `extensiond.toml`.
    var main: String { path + "/extensiond.toml" }

    /// Writes the main file and loads it.
    func load(_ text: String) throws -> Configuration {
        try write("extensiond.toml", text)
        return try ConfigurationLoader.load(path: main)
    }

    /// Writes the main file, loads it and returns the errors; none is a test failure by the caller.
    func errors(_ text: String) throws -> [ConfigurationError] {
        try write("extensiond.toml", text)
        return loadErrors()
    }

    /// Loads the main file (and drop-ins already written) and returns the errors.
    func loadErrors() -> [ConfigurationError] {
        do {
            _ = try ConfigurationLoader.load(path: main)
            return []
        } catch {
            return error.errors
        }
    }
}

/// A minimal valid app plus widget, to which a test adds the one thing it is about.
let minimalConfig = """
    [apps.app]
    command = ["/bin/app"]

    [extensions.widget]
    app = "app"
    point = "widget"
    command = ["/bin/widget"]

    """

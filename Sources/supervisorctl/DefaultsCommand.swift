import ArgumentParser
import ControlProtocol
import WireProtocol

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct DefaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "Read and write an app group's shared key-value store.",
        discussion: """
            get KEY, set KEY VALUE, remove KEY, list. VALUE is JSON (42, true, "text", {"a":1}); \
            anything that is not valid JSON is taken as a string.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "An app group, e.g. group.com.example.weather.") var group: String
    @Argument(help: "get, set, remove or list.") var operation: DefaultsOperation
    @Argument(help: "The key (get, set, remove).") var key: String?
    @Argument(help: "The value (set).") var value: String?

    func validate() throws {
        switch operation {
        case .list:
            if let key { throw ValidationError("defaults list takes no KEY, got '\(key)'") }
        case .get, .remove:
            guard key != nil else { throw ValidationError("defaults \(operation.rawValue) needs a KEY") }
            if let value { throw ValidationError("defaults \(operation.rawValue) takes no VALUE, got '\(value)'") }
        case .set:
            guard key != nil else { throw ValidationError("defaults set needs a KEY and a VALUE") }
            guard value != nil else { throw ValidationError("defaults set needs a VALUE after the KEY") }
        }
    }

    func run() throws {
        let request = DefaultsRequest(group: group, operation: operation, key: key, value: value.map(Self.json))
        let response = try global.call(.defaults(request))
        global.show(response) { $0.message ?? "ok" }
    }

    /// `value` parsed as JSON, else `value` as a JSON string.
    static func json(_ value: String) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(value.utf8))) ?? .string(value)
    }
}

extension DefaultsOperation: ExpressibleByArgument {}

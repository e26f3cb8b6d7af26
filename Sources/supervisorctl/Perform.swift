import ArgumentParser
import ControlProtocol
import WireProtocol

struct Perform: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "perform",
        abstract: "Run an action or share extension on items; print the items it returns.",
        discussion: "Each ITEM is type=path, e.g. public.image=/tmp/a.png."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("An action or share extension id.", valueName: "extension"), completion: NameCompletion.names) var name: String
    @Argument(help: ArgumentHelp("Items as type=path.", valueName: "item")) var items: [String] = []

    func validate() throws {
        guard !items.isEmpty else { throw ValidationError("perform needs at least one item (type=path, e.g. public.image=/tmp/a.png)") }
        for item in items where !Self.isTypeAndPath(item) {
            throw ValidationError("item '\(item)' is not of the form type=path (e.g. public.image=/tmp/a.png)")
        }
    }

    func run() throws {
        let request = PerformRequest(name: name, items: items.map(Self.item))
        let response = try global.call(.perform(request))
        global.show(response) { $0.lines?.joined(separator: "\n") ?? $0.message ?? "completed" }
    }

    /// `type=path` (checked by ``validate()``) as an item.
    private static func item(_ text: String) -> Item {
        let equals = text.firstIndex(of: "=")!
        return Item(type: String(text[..<equals]), path: String(text[text.index(after: equals)...]))
    }

    /// A non-empty type, `=`, and a non-empty path.
    private static func isTypeAndPath(_ item: String) -> Bool {
        guard let equals = item.firstIndex(of: "=") else { return false }
        return equals != item.startIndex && item.index(after: equals) != item.endIndex
    }
}

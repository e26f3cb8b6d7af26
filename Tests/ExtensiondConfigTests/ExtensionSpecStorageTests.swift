import ExtensiondConfig
import Testing

/// An `ExtensionSpec`'s copies share one storage of its fields (the daemon holds each spec
/// three times); they must still behave as values.
@Suite struct ExtensionSpecStorageTests {
    @Test func aChangedCopyLeavesTheOthersAlone() {
        let original = ExtensionSpec(id: "demo.widget", app: "demo", point: .widget, launch: LaunchSpec(command: ["/bin/widget"]))
        var copy = original
        #expect(copy == original)
        copy.refresh.interval = .seconds(60)
        copy.modes = [.expanded]
        copy.launch.command.append("--verbose")
        #expect(copy != original)
        #expect(original.refresh.interval == .seconds(30 * 60) && original.modes == [.compact, .expanded])
        #expect(original.launch.command == ["/bin/widget"] && copy.launch.command == ["/bin/widget", "--verbose"])
        #expect(copy.refresh.interval == .seconds(60) && copy.id == "demo.widget")
    }

    @Test func specsWithTheSameFieldsAreEqualWhateverTheirStorage() {
        var first = ExtensionSpec(id: "a", app: "demo", point: .action, launch: LaunchSpec(command: ["/bin/a"]))
        var second = ExtensionSpec(id: "a", app: "demo", point: .action, launch: LaunchSpec(command: ["/bin/a"]))
        #expect(first == second)
        first.priority = 3
        #expect(first != second)
        second.priority = 3
        #expect(first == second)
    }
}

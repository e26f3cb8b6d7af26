import ExtensiondConfig
import Testing

/// `modes`: the display modes a widget declares, each refused with its place when wrong.
@Suite struct WidgetModesTests {
    @Test func bothModesByDefault() throws {
        let config = try ConfigDirectory().load(minimalConfig)
        #expect(config.extensions.first?.modes == [.compact, .expanded])
    }

    @Test func declaredModesAreKept() throws {
        let config = try ConfigDirectory().load(minimalConfig + "modes = [\"expanded\"]\n")
        #expect(config.extensions.first?.modes == [.expanded])
    }

    @Test(arguments: [
        ("modes = [\"compact\", \"huge\"]", #""huge" is not a display mode"#, 21),
        ("modes = []", "expected at least one display mode", 1),
        ("modes = [\"compact\", \"compact\"]", "a display mode is listed twice", 1),
        ("modes = \"compact\"", "expected an array, found a string", 1),
    ])
    func badModesAreRefusedWhereWritten(line: String, message: String, column: Int) throws {
        let error = try #require(try ConfigDirectory().errors(minimalConfig + line + "\n").first)
        #expect(error.line == 8)
        #expect(error.column == column)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test func onlyWidgetsHaveModes() throws {
        let errors = try ConfigDirectory().errors(
            minimalConfig + """
                [extensions.share]
                app = "app"
                point = "share"
                command = ["/bin/share"]
                modes = ["compact"]

                """)
        #expect(errors.map(\.keyPath) == ["extensions.share.modes"])
        #expect(errors.first?.message == "modes applies to widgets, not share extensions")
    }
}

import ExtensiondTestSupport
import Testing

@testable import ExtensiondConfig

/// Errors point at the line and column where the key was written, however the TOML around
/// it is spelled.
@Suite struct SourcePositionTests {
    /// The (line, column) of the only error of `text`.
    private func position(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [Int?] {
        let directory = try ConfigDirectory()
        let errors = try directory.errors(text)
        #expect(errors.count == 1, "\(errors)", sourceLocation: sourceLocation)
        return [errors.first?.line, errors.first?.column]
    }

    @Test func multilineStringsAndArraysAreSkipped() throws {
        let text = """
            [hosts.h]  # [hosts.fake] "
            command = ["/bin/h", \"\"\"
            [not.a.table]
            memory_max = "x" \\\"\"\"
            \"\"\"\", '''
            also = 'not'
            ''',
              # a comment in an array ]
              "last",
            ]
               memory_max = "bad"
            """
        #expect(try position(text) == [11, 4])
    }

    @Test func dottedKeys() throws {
        #expect(try position(minimalConfig + "refresh.interval = \"10\"\n") == [8, 9])
        #expect(try position("hosts.h.command = [\"/h\"]\nhosts.h.pids_max = -1\n") == [2, 9])
    }

    @Test func quotedKeysWithEscapes() throws {
        let text = """
            [apps.app]
            command = ["/bin/app"]
            [extensions."w\\u0041"]
            app = "app"
            point = "widget"
            command = ["/w"]
            'memory_max' = "bad"
            """
        #expect(try position(text) == [7, 1])
    }

    @Test func inlineTableEntries() throws {
        #expect(try position("[hosts.h]\ncommand = [\"/h\"]\nenvironment = { \"é\" = \"x\", B = 5 }\n") == [3, 28])
    }

    @Test func keysWithANULAreRejectedWhereWritten() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors("[hosts.h]\ncommand = [\"/h\"]\n\"a\\u0000x\" = 1\n\"a\\u0000y\" = 2\n")
        #expect(errors.count == 1)
        #expect(errors.first?.line == 3)
        #expect(errors.first?.column == 1)
        #expect(errors.first?.message == "a key must not contain a NUL character")
    }

    @Test func windowsLineEndings() throws {
        let text = "[hosts.h]\r\ncommand = [\"/h\"]\r\n\r\npids_max = 0\r\n"
        #expect(try position(text) == [4, 1])
    }

    @Test func arrayOfTablesIsAWrongType() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors("[[hosts]]\ncommand = [\"/h\"]\n")
        #expect(errors.count == 1)
        #expect(errors.first?.line == 1)
        #expect(
            errors.first?.message.contains("expected a table of entries such as [hosts.ID], found an array") == true)
    }

    @Test func keyPathsAreSpelledAsTOML() {
        let path = ConfigKeyPath.root.appending("extensions").appending("com.example.w").appending("command").appending(
            index: 0)
        #expect(path.description == #"extensions."com.example.w".command[0]"#)
        #expect(ConfigKeyPath.root.appending("a\"b\n").description == #""a\"b\u000A""#)
    }
}

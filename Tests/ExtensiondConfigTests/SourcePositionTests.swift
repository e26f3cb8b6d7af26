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

    @Test func keysWithANULAreRejectedBeforeTOMLKitSeesThem() throws {
        let directory = try ConfigDirectory()
        let errors = try directory.errors("[hosts.h]\ncommand = [\"/h\"]\n\"a\\u0000x\" = 1\n\"a\\u0000y\" = 2\n")
        #expect(errors.count == 1)
        #expect(errors.first?.line == 3)
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

    @Test func locatorFindsKeysTablesAndElements() {
        let locations = KeyLocator.locate(
            in: """
                top = 1
                [a . "b.c"]
                list = [ 1,
                  { x = 2 } ]
                [[arr]]
                k = 'v'
                [[arr]]
                k = 'w'
                """)
        func at(_ components: KeyPathComponent...) -> [Int]? {
            locations[ConfigKeyPath(components: components)].map { [$0.line, $0.column] }
        }
        #expect(at(.key("top")) == [1, 1])
        #expect(at(.key("a")) == [2, 2])
        #expect(at(.key("a"), .key("b.c")) == [2, 6])
        #expect(at(.key("a"), .key("b.c"), .key("list"), .index(1)) == [4, 3])
        #expect(at(.key("a"), .key("b.c"), .key("list"), .index(1), .key("x")) == [4, 5])
        #expect(at(.key("arr"), .index(0)) == [5, 3])
        #expect(at(.key("arr"), .index(1)) == [7, 3])
        #expect(at(.key("arr"), .index(1), .key("k")) == [8, 1])
    }

    /// The locator runs only on text TOMLKit accepted, but must never crash or hang on any text.
    @Test func locatorSurvivesRandomText() {
        var random = SeededRandom(seed: 4)
        let alphabet = Array("ab=.[]{}\"'\\#,\n\r\t 1u")
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &random)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &random) ?? " " })
            let locations = KeyLocator.locate(in: text)
            #expect(locations.values.allSatisfy { $0.line >= 1 && $0.column >= 1 })
        }
    }

    @Test func keyPathsAreSpelledAsTOML() {
        let path = ConfigKeyPath.root.appending("extensions").appending("com.example.w").appending("command").appending(
            index: 0)
        #expect(path.description == #"extensions."com.example.w".command[0]"#)
        #expect(ConfigKeyPath.root.appending("a\"b\n").description == #""a\"b\u000A""#)
    }
}

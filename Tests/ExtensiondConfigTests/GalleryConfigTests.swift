import ExtensiondConfig
import Testing

/// A widget's gallery keys (`display_name`, `description`, `preview`, `parameters`), the
/// `[places]` and a host's `manage`: read as written, refused where written when wrong.
@Suite struct GalleryConfigTests {
    @Test func everyGalleryKeyIsRead() throws {
        let config = try ConfigDirectory().load(
            minimalConfig + #"""
                display_name = { default = "Weather", "zh-CN" = "天气" }
                description = "Today's weather in the city you choose."
                preview = { type = "AdaptiveCard", version = "1.5", body = [{ type = "TextBlock", text = "Paris 21°", size = 1.5 }] }
                parameters = [
                    { name = "city", type = "choice", choices = ["Paris", "Beijing"], default = "Beijing", display_name = { default = "City", fr = "Ville" } },
                    { name = "note", type = "text", default = "", max_length = 40 },
                    { name = "days", type = "number", min = 1, max = 7.5, step = 1, default = 3 },
                    { name = "celsius", type = "toggle", default = true },
                ]

                [hosts.today]
                command = ["/bin/today"]
                manage = true

                [places.lock_screen]
                compact = "320x110"
                expanded = "320x396"

                [places.panel]
                compact = "640x120"
                """#)
        let gallery = try #require(config.extensions.first?.gallery)
        #expect(gallery.displayName == LocalizedText("Weather", translations: ["zh-CN": "天气"]))
        #expect(gallery.description?.text == "Today's weather in the city you choose.")
        #expect(gallery.preview == #"{"body":[{"size":1.5,"text":"Paris 21°","type":"TextBlock"}],"type":"AdaptiveCard","version":"1.5"}"#)
        #expect(
            gallery.parameters == [
                WidgetParameter(
                    name: "city", displayName: LocalizedText("City", translations: ["fr": "Ville"]),
                    kind: .choice(["Paris", "Beijing"]), defaultValue: .text("Beijing")),
                WidgetParameter(name: "note", kind: .text(maxLength: 40), defaultValue: .text("")),
                WidgetParameter(name: "days", kind: .number(1...7.5, step: 1), defaultValue: .number(3)),
                WidgetParameter(name: "celsius", kind: .toggle, defaultValue: .toggle(true)),
            ])
        #expect(config.hosts.first?.manage == true)
        #expect(
            config.places == [
                PlaceSpec(id: "lock_screen", maxSizes: [.compact: PixelSize(width: 320, height: 110), .expanded: PixelSize(width: 320, height: 396)]),
                PlaceSpec(id: "panel", maxSizes: [.compact: PixelSize(width: 640, height: 120)]),
            ])
    }

    @Test func nothingIsDeclaredByDefault() throws {
        let config = try ConfigDirectory().load(minimalConfig + "\n[hosts.h]\ncommand = [\"/bin/h\"]\n")
        #expect(config.extensions.first?.gallery == WidgetGallery())
        #expect(config.hosts.first?.manage == false)
        #expect(config.places.isEmpty)
    }

    @Test(
        arguments: [
            ("zh-CN", "天气"), ("zh_cn", "天气"), ("zh-CN-x-private", "天气"), ("zh", "中文"), ("fr-FR", "Weather"), (nil, "Weather"),
        ] as [(String?, String)])
    func aTranslationIsChosenByTheLongestMatchingTag(locale: String?, text: String) {
        let name = LocalizedText("Weather", translations: ["zh-CN": "天气", "zh": "中文"])
        #expect(name.text(for: locale) == text)
    }

    @Test(arguments: [
        (#"display_name = """#, "expected a non-empty string", 1),
        (#"display_name = { "zh-CN" = "天气" }"#, #"missing "default""#, 1),
        (#"display_name = { default = "W", "not a tag" = "x" }"#, #""not a tag" is not a language tag"#, 33),
        (#"preview = "card""#, "expected an inline table (a card or a snapshot), found a string", 1),
        (#"preview = { when = 2026-11-22 }"#, "a local date has no JSON form", 13),
        (
            #"parameters = [{ name = "city", type = "choice", choices = ["Paris"], default = "Oslo" }]"#,
            #"the default "Oslo" is not one of the choices"#, 70
        ),
        (#"parameters = [{ name = "days", type = "number", min = 1, max = 7, default = 9 }]"#, "the default 9.0 is outside min...max", 67),
        (#"parameters = [{ name = "days", type = "number", min = 8, max = 7, default = 7 }]"#, "min (8.0) must not be above max (7.0)", 49),
        (#"parameters = [{ name = "on", type = "toggle", default = "yes" }]"#, "expected a boolean", 47),
        (#"parameters = [{ name = "on", type = "slider", default = 1 }]"#, #""slider" is not a parameter type"#, 30),
        (#"parameters = [{ name = "on", type = "toggle" }]"#, #"missing required key "default""#, 15),
        (#"parameters = [{ name = "a b", type = "toggle", default = true }]"#, #""a b" is not a parameter name"#, 17),
        (#"parameters = [{ name = "on", type = "toggle", default = true, colour = 1 }]"#, #"unknown key "colour""#, 63),
        (#"parameters = [{ name = "t", type = "text", default = "long", max_length = 2 }]"#, "longer than max_length (2)", 44),
    ])
    /// Each error points at the key (or inline table) at fault.
    func badGalleryKeysAreRefusedWhereWritten(line: String, message: String, column: Int) throws {
        let error = try #require(try ConfigDirectory().errors(minimalConfig + line + "\n").first)
        #expect(error.line == 8, "\(error)")
        #expect(error.column == column, "\(error)")
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test func aParameterDeclaredTwiceIsRefusedAtItsSecondDeclaration() throws {
        let errors = try ConfigDirectory().errors(
            minimalConfig + """
                parameters = [{ name = "on", type = "toggle", default = true }, { name = "on", type = "toggle", default = false }]

                """)
        #expect(errors.map(\.message) == [#"parameter "on" is declared twice"#])
        #expect(errors.first?.column == 65)
    }

    @Test func onlyWidgetsHaveAPreviewAndParameters() throws {
        let errors = try ConfigDirectory().errors(
            minimalConfig + """
                [extensions.share]
                app = "app"
                point = "share"
                command = ["/bin/share"]
                display_name = "Share"
                preview = { text = "x" }

                """)
        #expect(errors.map(\.message) == ["preview applies to widgets, not share extensions"])
    }

    @Test(arguments: [
        ("compact = \"320\"", #""320" is not a size"#, 1), ("compact = \"0x10\"", "each 1 to 16384", 1),
        ("expanded = \"99999x10\"", "each 1 to 16384", 1), ("huge = \"1x1\"", #"unknown key "huge""#, 1),
    ])
    func badPlacesAreRefusedWhereWritten(line: String, message: String, column: Int) throws {
        let error = try #require(try ConfigDirectory().errors(minimalConfig + "\n[places.home]\n" + line + "\n").first)
        #expect(error.line == 10 && error.column == column, "\(error)")
        #expect(error.message.contains(message), "\(error.message)")
    }
}

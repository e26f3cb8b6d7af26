/// The gallery keys of `[extensions.ID]` (`display_name`, `description`, `preview`,
/// `parameters`) and the `[places.NAME]` tables.
extension ConfigurationDecoder {
    /// Longest `display_name` and `description`, in bytes, in any language.
    static let maxNameBytes = 256
    static let maxDescriptionBytes = 4096

    func gallery(_ reader: TableReader, point: ExtensionPoint?, into gallery: inout WidgetGallery) {
        reader.read("display_name", .localizedText(maxBytes: Self.maxNameBytes), into: &gallery.displayName)
        reader.read("description", .localizedText(maxBytes: Self.maxDescriptionBytes), into: &gallery.description)
        reader.read("preview", .previewJSON, into: &gallery.preview)
        if let node = reader.node("parameters") {
            gallery.parameters = parameters(node)
        }
        for key in ["preview", "parameters"] where reader.node(key) != nil {
            if let point, point != .widget {
                reader.report(involving: [key], "\(key) applies to widgets, not \(point.rawValue) extensions")
            }
        }
    }

    /// `parameters = [{ name = "city", type = "choice", choices = […], default = "…" }, …]`.
    private func parameters(_ node: ConfigNode) -> [WidgetParameter] {
        guard case .array(let elements) = node.value else {
            diagnostics.report(node.mismatch("an array of inline tables such as [{ name = \"city\", type = \"text\", default = \"Paris\" }]"))
            return []
        }
        if elements.count > WidgetParameter.maxCount {
            diagnostics.report(node.origin.error("\(elements.count) parameters; at most \(WidgetParameter.maxCount) are allowed"))
        }
        var seen: Set<String> = []
        return elements.compactMap { element in
            guard let parameter = self.parameter(element) else { return nil }
            guard seen.insert(parameter.name).inserted else {
                diagnostics.report(element.origin.error("parameter \"\(parameter.name)\" is declared twice"))
                return nil
            }
            return parameter
        }
    }

    private func parameter(_ node: ConfigNode) -> WidgetParameter? {
        guard let reader = TableReader(node, diagnostics: diagnostics) else { return nil }
        defer { reader.rejectUnknownKeys() }
        let name = reader.require("name", .parameterName)
        let type = reader.require(
            "type",
            ValueKind<String>.string.refined { type in
                ["text", "choice", "number", "toggle"].contains(type)
                    ? .success(type)
                    : .failure(ValueSyntaxError(#""\#(type)" is not a parameter type; expected one of "text", "choice", "number", "toggle""#))
            })
        let displayName = reader.read("display_name", .localizedText(maxBytes: Self.maxNameBytes))
        let kind: WidgetParameter.Kind?
        let value: WidgetParameter.Value?
        switch type {
        case "text":
            let maxLength = reader.read("max_length", .positiveInteger) ?? WidgetParameter.defaultTextLength
            kind = .text(maxLength: maxLength)
            value = reader.require(
                "default",
                ValueKind<String>.string.refined { text in
                    text.utf8.count <= maxLength
                        ? .success(.text(text))
                        : .failure(ValueSyntaxError("the default is \(text.utf8.count) bytes, longer than max_length (\(maxLength))"))
                })
        case "choice":
            let choices = reader.require(
                "choices",
                ValueKind<String>.nonEmptyString.list.refined { choices in
                    choices.isEmpty
                        ? .failure(ValueSyntaxError("expected at least one choice"))
                        : Set(choices).count < choices.count ? .failure(ValueSyntaxError("a choice is listed twice")) : .success(choices)
                })
            kind = choices.map { .choice($0) }
            value = reader.require(
                "default",
                ValueKind<String>.string.refined { text in
                    choices?.contains(text) == false
                        ? .failure(ValueSyntaxError("the default \"\(text)\" is not one of the choices")) : .success(.text(text))
                })
        case "number":
            let minimum = reader.require("min", .number), maximum = reader.require("max", .number)
            let step = reader.read(
                "step",
                ValueKind<Double>.number.refined { step in
                    step > 0 ? .success(step) : .failure(ValueSyntaxError("a step must be above 0, found \(step)"))
                })
            if let minimum, let maximum, minimum > maximum {
                reader.report(involving: ["min", "max"], "min (\(minimum)) must not be above max (\(maximum))")
            }
            let range = minimum.flatMap { low in maximum.flatMap { high in low <= high ? low...high : nil } }
            kind = range.map { .number($0, step: step) }
            value = reader.require(
                "default",
                ValueKind<Double>.number.refined { number in
                    range.map { !$0.contains(number) } == true
                        ? .failure(ValueSyntaxError("the default \(number) is outside min...max")) : .success(.number(number))
                })
        case "toggle":
            kind = .toggle
            value = reader.require("default", ValueKind<Bool>.boolean.refined { .success(.toggle($0)) })
        default:
            return nil
        }
        guard let name, let kind, let value else { return nil }
        return WidgetParameter(name: name, displayName: displayName, kind: kind, defaultValue: value)
    }

    /// `[places.NAME]`, sorted by name.
    func places(_ node: ConfigNode) -> [PlaceSpec] {
        guard let table = node.table else {
            diagnostics.report(node.mismatch("a table of places such as [places.lock_screen]"))
            return []
        }
        return table.sorted { $0.key < $1.key }.compactMap { name, entry in
            if let problem = Identifier.problem(with: name, kind: "a place name") {
                diagnostics.report(entry.origin.error(problem))
                return nil
            }
            guard let reader = TableReader(entry, diagnostics: diagnostics) else { return nil }
            defer { reader.rejectUnknownKeys() }
            var sizes: [WidgetMode: PixelSize] = [:]
            for mode in WidgetMode.allCases {
                sizes[mode] = reader.read(
                    mode.rawValue,
                    ValueKind<String>.string.refined { text in
                        do throws(ValueSyntaxError) { return .success(try PixelSize(parsing: text)) } catch { return .failure(error) }
                    })
            }
            return PlaceSpec(id: name, maxSizes: sizes)
        }
    }
}

extension ValueKind where Value == LocalizedText {
    /// `"Weather"`, or `{ default = "Weather", "zh-CN" = "天气" }`: each text non-empty and at
    /// most `maxBytes`, each key a language tag.
    static func localizedText(maxBytes: Int) -> Self {
        let text = ValueKind<String>.nonEmptyString.refined { text in
            text.utf8.count <= maxBytes
                ? .success(text)
                : .failure(ValueSyntaxError("is \(text.utf8.count) bytes; at most \(maxBytes) are allowed"))
        }
        return Self { node throws(ConfigurationError) in
            if case .string = node.value { return LocalizedText(try text.decode(node)) }
            guard node.table != nil else {
                throw node.mismatch(#"a string, or a table of translations such as { default = "Weather", "zh-CN" = "天气" }"#)
            }
            var translations = try text.table(keys: { tag in
                tag == "default" || isLanguageTag(tag)
                    ? nil
                    : "\"\(tag)\" is not a language tag: expected letters, digits and \"-\" such as \"zh-CN\", or \"default\""
            }).decode(node)
            guard let fallback = translations.removeValue(forKey: "default") else {
                throw node.origin.error("missing \"default\": the text for readers whose language has no translation")
            }
            return LocalizedText(fallback, translations: translations)
        }
    }
}

/// BCP 47 in the shape hosts send: 1 to 35 ASCII letters, digits, `-` or `_`, starting with a letter.
func isLanguageTag(_ tag: String) -> Bool {
    (1...35).contains(tag.utf8.count) && tag.first?.isLetter == true
        && tag.unicodeScalars.allSatisfy { $0.isASCIILetterOrDigit || $0 == "-" || $0 == "_" }
}

extension ValueKind where Value == String {
    /// `preview`: an inline table (a card or a snapshot), kept as JSON.
    static var previewJSON: Self {
        Self { node throws(ConfigurationError) in
            guard node.table != nil else { throw node.mismatch("an inline table (a card or a snapshot)") }
            return try ConfigJSON.text(of: node)
        }
    }

    /// A key of an instance's `params`: 1 to 64 ASCII letters, digits, `_`, `-` or `.`.
    static var parameterName: Self {
        string.refined { name in
            let valid =
                (1...64).contains(name.utf8.count)
                && name.unicodeScalars.allSatisfy { $0.isASCIILetterOrDigit || "_-.".unicodeScalars.contains($0) }
            return valid
                ? .success(name)
                : .failure(ValueSyntaxError("\"\(name)\" is not a parameter name: expected 1 to 64 letters, digits, \"_\", \"-\" or \".\""))
        }
    }
}

extension ValueKind where Value == Double {
    /// An integer or a finite float.
    static var number: Self {
        Self { node throws(ConfigurationError) in
            switch node.value {
            case .integer(let integer): return Double(integer)
            case .float(let float) where float.isFinite: return float
            default: throw node.mismatch("a finite number")
            }
        }
    }
}

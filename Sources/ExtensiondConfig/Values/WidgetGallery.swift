/// What a gallery shows of a widget before it ever ran, and the settings a user picks per
/// instance (WidgetKit's placeholder and configuration intents; docs/CONFIG.md, "Gallery").
public struct WidgetGallery: Sendable, Equatable {
    /// `display_name`: the name a person reads.
    public var displayName: LocalizedText?
    /// `description`: one or two sentences on what it shows.
    public var description: LocalizedText?
    /// `preview`: a card or snapshot shown while the widget has no content yet, as compact
    /// JSON (object keys sorted).
    public var preview: String?
    /// `parameters`: the settings of each instance, in the order written.
    public var parameters: [WidgetParameter] = []

    /// Nothing to show but the id.
    public init() {}
}

/// A text with translations: `"Weather"`, or `{ default = "Weather", "zh-CN" = "天气" }`.
public struct LocalizedText: Sendable, Equatable {
    /// The text when no translation fits the reader's locale.
    public var text: String
    /// By BCP 47 language tag as written (`zh-CN`, `fr`).
    public var translations: [String: String]

    /// A text and its translations.
    public init(_ text: String, translations: [String: String] = [:]) {
        self.text = text
        self.translations = translations
    }

    /// The text for `locale` (a BCP 47 tag; `_` is read as `-`, case does not matter): the
    /// translation of the tag itself, else of its shorter prefixes (`zh-Hans-CN`, `zh-Hans`,
    /// `zh`), else ``text``.
    public func text(for locale: String?) -> String {
        guard var tag = locale?.replacingUnderscores.lowercased(), !translations.isEmpty else { return text }
        let byTag = Dictionary(translations.map { ($0.key.replacingUnderscores.lowercased(), $0.value) }) { first, _ in first }
        while !tag.isEmpty {
            if let translated = byTag[tag] { return translated }
            tag = String(tag[..<(tag.lastIndex(of: "-") ?? tag.startIndex)])
        }
        return text
    }
}

extension String {
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
}

/// One setting of a widget's instances, with its default.
public struct WidgetParameter: Sendable, Equatable {
    /// The key of the setting in the instance's `params`.
    public var name: String
    /// What a form shows as its label; `nil`: the name.
    public var displayName: LocalizedText?
    public var kind: Kind
    /// What an instance gets unless the user chooses otherwise.
    public var defaultValue: Value

    /// A setting named `name` of `kind` with `defaultValue`.
    public init(name: String, displayName: LocalizedText? = nil, kind: Kind, defaultValue: Value) {
        self.name = name
        self.displayName = displayName
        self.kind = kind
        self.defaultValue = defaultValue
    }

    /// The type of a setting: the form control a host draws for it.
    public enum Kind: Sendable, Equatable {
        /// Free text of at most `maxLength` bytes.
        case text(maxLength: Int)
        /// One of `choices`.
        case choice([String])
        /// A number within `range`, in steps of `step` when given.
        case number(ClosedRange<Double>, step: Double?)
        /// On or off.
        case toggle

        /// The spelling of `type`.
        public var name: String {
            switch self {
            case .text: "text"
            case .choice: "choice"
            case .number: "number"
            case .toggle: "toggle"
            }
        }
    }

    /// A setting's value.
    public enum Value: Sendable, Equatable {
        case text(String)
        case number(Double)
        case toggle(Bool)
    }

    /// The longest text a `text` setting may have when it does not say (`max_length`).
    public static let defaultTextLength = 256
    /// Settings one widget may declare.
    public static let maxCount = 32
}

/// Light or dark, as the host shows it.
public enum ColorScheme: String, WireEnum {
    case light
    case dark
}

/// What a host renders a widget for (WidgetKit's environment): its color scheme, its locale
/// (a BCP 47 tag such as `zh-CN`) and its scale factor (device pixels per point). Hosts say it
/// with `pull`, `subscribe` and `visible`; `update` and `execute` carry it to the widget.
/// Each field is optional: absent, the host did not say.
public struct RenderEnvironment: Hashable, Sendable {
    public var colorScheme: ColorScheme?
    public var locale: String?
    public var scale: Double?

    /// The longest locale tag accepted.
    public static let maxLocaleBytes = 64
    /// The scale factors accepted.
    public static let scales: ClosedRange<Double> = 0.25...16

    /// Creates the value from its fields.
    public init(colorScheme: ColorScheme? = nil, locale: String? = nil, scale: Double? = nil) {
        self.colorScheme = colorScheme
        self.locale = locale
        self.scale = scale
    }

    /// `bytes` as a locale tag: 1 to ``maxLocaleBytes`` ASCII letters, digits, `-` and `_`;
    /// `nil` for anything else.
    @inlinable
    package static func localeTag(_ bytes: some Collection<UInt8>) -> String? {
        guard (1...maxLocaleBytes).contains(bytes.count), bytes.allSatisfy(isLocaleByte) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    @usableFromInline
    static func isLocaleByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// Whether the host said nothing.
    public var isEmpty: Bool { colorScheme == nil && locale == nil && scale == nil }

    /// What `newer` says, and this value where `newer` says nothing.
    public func updated(by newer: RenderEnvironment) -> RenderEnvironment {
        RenderEnvironment(colorScheme: newer.colorScheme ?? colorScheme, locale: newer.locale ?? locale, scale: newer.scale ?? scale)
    }
}

extension KeyedDecodingContainer {
    /// The environment's three fields of a message: `locale` letters, digits and `-`/`_`
    /// only, at most ``RenderEnvironment/maxLocaleBytes``; `scale` in ``RenderEnvironment/scales``.
    package func decodeRenderEnvironment(colorScheme: Key, locale: Key, scale: Key) throws -> RenderEnvironment {
        let tag = try decodeBoundedStringIfPresent(forKey: locale, maxBytes: RenderEnvironment.maxLocaleBytes)
        if let tag, RenderEnvironment.localeTag(tag.utf8) == nil {
            throw DecodingError.dataCorruptedError(forKey: locale, in: self, debugDescription: "not a locale tag (letters, digits, '-')")
        }
        let factor = try decodeIfPresent(Double.self, forKey: scale)
        if let factor, !RenderEnvironment.scales.contains(factor) {
            throw DecodingError.dataCorruptedError(forKey: scale, in: self, debugDescription: "outside \(RenderEnvironment.scales)")
        }
        return RenderEnvironment(colorScheme: try decodeIfPresent(ColorScheme.self, forKey: colorScheme), locale: tag, scale: factor)
    }
}

/// A message with the environment's three fields (`update`, `execute`, and the host's `pull`,
/// `subscribe`, `visible`), read and set as one value.
public protocol CarriesEnvironment {
    var colorScheme: ColorScheme? { get set }
    var locale: String? { get set }
    var scale: Double? { get set }
}

extension CarriesEnvironment {
    /// The host's color scheme, locale and scale, as far as this message says them.
    public var environment: RenderEnvironment {
        get { RenderEnvironment(colorScheme: colorScheme, locale: locale, scale: scale) }
        set {
            colorScheme = newValue.colorScheme
            locale = newValue.locale
            scale = newValue.scale
        }
    }
}

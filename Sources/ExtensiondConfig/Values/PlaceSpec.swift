/// `[places.NAME]`: where widgets appear (a lock screen, a home screen, a panel) and the
/// largest size each display mode may take there.
public struct PlaceSpec: Sendable, Equatable, Identifiable {
    /// The table name; hosts name it in `place`.
    public var id: String
    /// The largest size per mode; a mode without one is not limited by the place.
    public var maxSizes: [WidgetMode: PixelSize]

    /// A place with its maxima.
    public init(id: String, maxSizes: [WidgetMode: PixelSize]) {
        self.id = id
        self.maxSizes = maxSizes
    }
}

/// `"320x110"`: a width and a height in pixels, each 1 to ``PixelSize/maxSide``.
public struct PixelSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    /// A size of `width` by `height`.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The longest side a place may declare.
    public static let maxSide = 16384

    /// Reads `"WIDTHxHEIGHT"`.
    public init(parsing text: String) throws(ValueSyntaxError) {
        let sides = text.split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, sides.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            let width = Int(sides[0]), let height = Int(sides[1]),
            (1...Self.maxSide).contains(width), (1...Self.maxSide).contains(height)
        else {
            throw ValueSyntaxError(
                "\"\(text)\" is not a size: expected \"WIDTHxHEIGHT\" in pixels, each 1 to \(Self.maxSide), such as \"320x110\"")
        }
        self.init(width: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }
}

/// Which type identifiers conform to which (`public.jpeg` is a `public.image`, which is
/// `public.data`): the built-in hierarchy of the common identifiers, extended by
/// declarations. A type conforms to itself and, transitively, to each of its parents; an
/// unknown identifier conforms only to itself. Declarations never make a cycle:
/// ``declare(_:conformsTo:)`` refuses the one that would close it.
public struct TypeHierarchy: Sendable, Equatable {
    /// The longest type identifier accepted in a declaration, in UTF-8 bytes.
    public static let maxIdentifierLength = 255
    /// The most declared edges (a type and one parent) on top of the built-in ones.
    public static let maxDeclarations = 1024

    /// Each type's direct parents, in declaration order.
    private var parents: [String: [String]]
    private var declarations = 0

    /// The built-in hierarchy.
    public init() {
        parents = Self.builtIn
    }

    /// Why `type` conforming to `parent` cannot be declared.
    public enum DeclarationError: Error, Equatable, CustomStringConvertible {
        /// `parent` already conforms to `type`: the declaration would close this cycle,
        /// listed from `type` back to itself.
        case cycle([String])
        /// An identifier that is empty, too long, or contains whitespace or control characters.
        case invalidIdentifier(String)
        /// More than ``TypeHierarchy/maxDeclarations`` declarations.
        case tooManyDeclarations

        public var description: String {
            switch self {
            case .cycle(let path):
                "declaring this would make a conformance cycle: \(path.joined(separator: " → "))"
            case .invalidIdentifier(let identifier):
                "\"\(identifier)\" is not a type identifier: it must be 1 to \(TypeHierarchy.maxIdentifierLength)"
                    + " bytes without whitespace or control characters"
            case .tooManyDeclarations:
                "at most \(TypeHierarchy.maxDeclarations) type conformances may be declared"
            }
        }
    }

    /// Adds `parent` to the parents of `type`. Declaring an edge that exists is harmless.
    public mutating func declare(_ type: String, conformsTo parent: String) throws(DeclarationError) {
        for identifier in [type, parent] where !Self.isValid(identifier) {
            throw .invalidIdentifier(identifier)
        }
        guard !(parents[type] ?? []).contains(parent) else { return }
        if let path = path(from: parent, to: type) {
            throw .cycle([type] + path)
        }
        guard declarations < Self.maxDeclarations else { throw .tooManyDeclarations }
        declarations += 1
        parents[type, default: []].append(parent)
    }

    /// Whether `type` is `ancestor` or conforms to it through its parents.
    public func conforms(_ type: String, to ancestor: String) -> Bool {
        path(from: type, to: ancestor) != nil
    }

    /// `type` and every type it conforms to, nearest first (breadth first, parents in
    /// declaration order), each once.
    public func lineage(of type: String) -> [String] {
        var lineage = [type]
        var seen: Set<String> = [type]
        var next = 0
        while next < lineage.count {
            for parent in parents[lineage[next]] ?? [] where seen.insert(parent).inserted {
                lineage.append(parent)
            }
            next += 1
        }
        return lineage
    }

    /// A chain of parents from `start` to `goal`, both included, if `start` conforms to `goal`.
    private func path(from start: String, to goal: String) -> [String]? {
        var cameFrom: [String: String] = [:]
        var frontier = [start]
        var seen: Set<String> = [start]
        while let type = frontier.popLast() {
            if type == goal {
                var path = [goal]
                while let previous = cameFrom[path[0]] { path.insert(previous, at: 0) }
                return path
            }
            for parent in parents[type] ?? [] where seen.insert(parent).inserted {
                cameFrom[parent] = type
                frontier.append(parent)
            }
        }
        return nil
    }

    private static func isValid(_ identifier: String) -> Bool {
        !identifier.isEmpty && identifier.utf8.count <= maxIdentifierLength
            && !identifier.unicodeScalars.contains { $0.properties.isWhitespace || $0.properties.generalCategory == .control }
    }

    /// The common identifiers, after the uniform type identifiers of Apple's platforms.
    static let builtIn: [String: [String]] = [
        "public.content": ["public.item"],
        "public.data": ["public.item"],
        "public.composite-content": ["public.content"],
        "public.text": ["public.data", "public.content"],
        "public.plain-text": ["public.text"],
        "public.utf8-plain-text": ["public.plain-text"],
        "public.source-code": ["public.plain-text"],
        "public.html": ["public.text"],
        "public.xml": ["public.text"],
        "public.json": ["public.text"],
        "public.rtf": ["public.text"],
        "public.vcard": ["public.text"],
        "public.url": ["public.data"],
        "public.file-url": ["public.url"],
        "public.image": ["public.data", "public.content"],
        "public.jpeg": ["public.image"],
        "public.png": ["public.image"],
        "public.tiff": ["public.image"],
        "public.heic": ["public.image"],
        "public.svg-image": ["public.image"],
        "com.compuserve.gif": ["public.image"],
        "org.webmproject.webp": ["public.image"],
        "public.audiovisual-content": ["public.data", "public.content"],
        "public.movie": ["public.audiovisual-content"],
        "public.video": ["public.movie"],
        "public.mpeg-4": ["public.movie"],
        "com.apple.quicktime-movie": ["public.movie"],
        "public.audio": ["public.audiovisual-content"],
        "public.mp3": ["public.audio"],
        "public.mpeg-4-audio": ["public.audio"],
        "com.adobe.pdf": ["public.data", "public.composite-content"],
        "public.archive": ["public.data"],
        "public.zip-archive": ["public.archive"],
    ]
}

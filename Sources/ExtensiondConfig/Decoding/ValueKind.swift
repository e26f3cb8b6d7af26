/// How to read one kind of config value from a node, with an error that says what was
/// expected when the node holds something else.
struct ValueKind<Value> {
    let decode: (ConfigNode) throws(ConfigurationError) -> Value

    init(_ decode: @escaping (ConfigNode) throws(ConfigurationError) -> Value) { self.decode = decode }

    /// This kind, further checked or converted by `refine`, whose message is reported at the node.
    func refined<Refined>(_ refine: @escaping (Value) -> Result<Refined, ValueSyntaxError>) -> ValueKind<Refined> {
        ValueKind<Refined> { node throws(ConfigurationError) in
            switch refine(try decode(node)) {
            case .success(let refined): return refined
            case .failure(let error): throw node.origin.error(error.message)
            }
        }
    }

    /// An array of this kind; an element's error points at the element.
    var list: ValueKind<[Value]> {
        ValueKind<[Value]> { node throws(ConfigurationError) in
            guard case .array(let elements) = node.value else { throw node.mismatch("an array") }
            var values: [Value] = []
            for element in elements { values.append(try decode(element)) }
            return values
        }
    }

    /// A table of this kind; an entry's error points at the entry, and `key` vets each key.
    func table(keys key: @escaping (String) -> String?) -> ValueKind<[String: Value]> {
        ValueKind<[String: Value]> { node throws(ConfigurationError) in
            guard let entries = node.table else { throw node.mismatch("a table") }
            var values: [String: Value] = [:]
            for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
                if let problem = key(name) { throw entry.origin.error(problem) }
                values[name] = try decode(entry)
            }
            return values
        }
    }
}

extension ConfigNode {
    /// "expected …, found …" at this node.
    func mismatch(_ expected: String) -> ConfigurationError {
        origin.error("expected \(expected), found \(typeName)")
    }
}

/// Wraps a throwing parser for ``ValueKind/refined(_:)``.
private func parsed<T>(_ parse: (String) throws(ValueSyntaxError) -> T, _ text: String) -> Result<T, ValueSyntaxError> {
    do { return .success(try parse(text)) } catch { return .failure(error) }
}

private func check<T>(
    _ value: T, _ isValid: Bool, _ message: @autoclosure () -> String
) -> Result<T, ValueSyntaxError> {
    isValid ? .success(value) : .failure(ValueSyntaxError(message()))
}

// MARK: - Scalars

extension ValueKind where Value == String {
    static var string: Self {
        Self { node throws(ConfigurationError) in
            guard case .string(let text) = node.value else { throw node.mismatch("a string") }
            return text
        }
    }

    static var nonEmptyString: Self { string.refined { check($0, !$0.isEmpty, "expected a non-empty string") } }

    /// An app id or an app group name.
    static func identifier(_ kind: String) -> Self {
        string.refined { name in
            Identifier.problem(with: name, kind: kind).map { .failure(ValueSyntaxError($0)) } ?? .success(name)
        }
    }

    /// RFC 3986: a letter, then letters, digits, `+`, `-`, `.`; lowercased, as schemes are case-insensitive.
    static var urlScheme: Self {
        string.refined { scheme in
            let scalars = scheme.unicodeScalars
            let valid =
                scalars.first.map { $0.isASCII && $0.properties.isAlphabetic } == true
                && scalars.allSatisfy { $0.isASCIILetterOrDigit || "+-.".unicodeScalars.contains($0) }
            return check(
                scheme.lowercased(), valid,
                #""\#(scheme)" is not a URL scheme: expected a letter, then letters, digits, "+", "-" or ".", "#
                    + #"such as "weather" (no "://")"#)
        }
    }

    static var absolutePath: Self {
        string.refined {
            check($0, $0.hasPrefix("/"), "expected an absolute path (starting with \"/\"), found \"\($0)\"")
        }
    }

    /// A file or directory; a relative one is resolved against the directory of the declaring file.
    static var path: Self { directory }

    /// A directory; a relative one is resolved against the directory of the declaring file.
    static var directory: Self {
        Self { node throws(ConfigurationError) in
            let path = try nonEmptyString.decode(node)
            return ConfigPaths.resolve(path, against: ConfigPaths.directory(of: node.origin.file))
        }
    }

    /// `host:port` with a port from 1 to 65535; an IPv6 host is written in brackets.
    static var listenAddress: Self {
        string.refined { address in
            let invalid = ValueSyntaxError(
                #""\#(address)" is not a listen address: expected "HOST:PORT" such as "127.0.0.1:9464" or "[::1]:9464""#
            )
            guard let colon = address.lastIndex(of: ":") else { return .failure(invalid) }
            let host = address[..<colon]
            let port = address[address.index(after: colon)...]
            let bracketsBalanced = host.hasPrefix("[") == host.hasSuffix("]")
            guard !host.isEmpty, bracketsBalanced, port.allSatisfy(\.isASCII), let number = Int(port),
                (1...65535).contains(number)
            else { return .failure(invalid) }
            return .success(address)
        }
    }
}

extension ValueKind where Value == ClosedRange<UInt32> {
    /// `"FIRST-LAST"`: numeric user and group ids, never 0 (root).
    static var idRange: Self {
        ValueKind<String>.string.refined { text in
            let bounds = text.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = UInt32(bounds[0]), let last = UInt32(bounds[1]), first >= 1, first <= last,
                last < UInt32.max
            else {
                return .failure(
                    ValueSyntaxError(
                        #""\#(text)" is not an id range: expected "FIRST-LAST" with 1 <= FIRST <= LAST < 4294967295, such as "61000-61999""#))
            }
            return .success(first...last)
        }
    }
}

extension ValueKind where Value == Bool {
    static var boolean: Self {
        Self { node throws(ConfigurationError) in
            guard case .boolean(let value) = node.value else { throw node.mismatch("a boolean (true or false)") }
            return value
        }
    }
}

extension ValueKind where Value == Int {
    static var integer: Self {
        Self { node throws(ConfigurationError) in
            guard case .integer(let value) = node.value else { throw node.mismatch("an integer") }
            return value
        }
    }

    static var positiveInteger: Self {
        integer.refined { check($0, $0 > 0, "expected an integer above 0, found \($0)") }
    }

    static func integer(in range: ClosedRange<Int>) -> Self {
        integer.refined {
            check($0, range.contains($0), "expected an integer from \(range.lowerBound) to \(range.upperBound), found \($0)")
        }
    }

}

// MARK: - Units

extension ValueKind where Value == ByteSize {
    /// A size above zero: every size in the config is a limit or budget, and 0 would mean nothing runs.
    static var size: Self {
        Self { node throws(ConfigurationError) in
            let size: ByteSize
            switch node.value {
            case .integer(let bytes) where bytes >= 0: size = ByteSize(UInt64(bytes))
            case .integer(let bytes):
                throw node.origin.error("\(bytes) is not a size; expected \(ByteSize.expectedForm)")
            case .string(let text):
                do throws(ValueSyntaxError) { size = try ByteSize(parsing: text) } catch {
                    throw node.origin.error(error.message)
                }
            default: throw node.mismatch(ByteSize.expectedForm)
            }
            guard size.bytes > 0 else { throw node.origin.error("a size must be above 0") }
            guard size <= ValueRanges.largestSize else {
                throw node.origin.error("\(size) is larger than the largest size, \(ValueRanges.largestSize) (1 EiB)")
            }
            return size
        }
    }
}

extension ValueKind where Value == ByteSize {
    /// A `disk_max`, in ``ByteSize/diskSizes``.
    static var diskSize: Self {
        size.refined {
            check($0, (ByteSize.diskSizes).contains($0.bytes), "a disk size must be from 4M to 1T, found \($0)")
        }
    }
}

extension ValueKind where Value == Duration {
    static var duration: Self {
        Self { node throws(ConfigurationError) in
            guard case .string(let text) = node.value else { throw node.mismatch(Duration.expectedForm + " in quotes") }
            let duration: Duration
            do throws(ValueSyntaxError) { duration = try Duration(parsing: text) } catch {
                throw node.origin.error(error.message)
            }
            guard duration <= ValueRanges.longestDuration else {
                throw node.origin.error(
                    "\"\(text)\" is longer than the longest duration, \(ValueRanges.longestDuration.configSpelling) (100 years)")
            }
            return duration
        }
    }

    /// A `pressure.trim_wait`, in ``PressureSettings/trimWaits``.
    static var trimWait: Self {
        duration.refined {
            check(
                $0, PressureSettings.trimWaits.contains($0),
                "trim_wait must be from 0s to \(PressureSettings.trimWaits.upperBound.configSpelling), found \($0.configSpelling)")
        }
    }

    static var positiveDuration: Self {
        duration.refined { check($0, $0 > .zero, "expected a duration above 0, found \($0.configSpelling)") }
    }
}

extension ValueKind where Value == Share {
    /// A pressure threshold: above 0% and at most 100%.
    static var threshold: Self {
        ValueKind<String>.string.refined { parsed(Share.init(parsing:), $0) }
            .refined { check($0, $0.fraction > 0, "a threshold must be above 0%, found \($0)") }
    }
}

extension ValueKind where Value == CPUQuota {
    static var cpuQuota: Self {
        Self { node throws(ConfigurationError) in
            guard case .string(let text) = node.value else { throw node.mismatch(CPUQuota.expectedForm + " in quotes") }
            do throws(ValueSyntaxError) { return try CPUQuota(parsing: text) } catch {
                throw node.origin.error(error.message)
            }
        }
    }
}

extension ValueKind where Value == PSITrigger {
    static var psiTrigger: Self { ValueKind<String>.string.refined { parsed(PSITrigger.init(parsing:), $0) } }
}

extension ValueKind where Value == ExtensionPoint {
    static var extensionPoint: Self { choice(of: ExtensionPoint.self, "an extension point") }
}

extension ValueKind where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the enumeration's spellings; `what` names it in the error ("an output").
    static func choice(of type: Value.Type, _ what: String) -> Self {
        ValueKind<String>.string.refined { text in
            let names = Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            return Value(rawValue: text).map(Result.success)
                ?? .failure(ValueSyntaxError("\"\(text)\" is not \(what); expected one of \(names)"))
        }
    }
}

// MARK: - Compound values

extension ValueKind where Value == [String] {
    /// A non-empty array of strings whose first element names the program. A program path
    /// with a `/` that is not absolute is resolved against the declaring file's directory.
    static var command: Self {
        Self { node throws(ConfigurationError) in
            let form = #"a non-empty array of strings, the program first, such as ["/usr/bin/foo", "--flag"]"#
            guard case .array = node.value else { throw node.mismatch(form) }
            var command = try ValueKind<String>.string.list.decode(node)
            guard let program = command.first, !program.isEmpty else { throw node.origin.error("expected \(form)") }
            if program.contains("/") {
                command[0] = ConfigPaths.resolve(program, against: ConfigPaths.directory(of: node.origin.file))
            }
            return command
        }
    }
}

extension ValueKind where Value == [String: String] {
    /// Variable names must be non-empty and contain neither `=` nor NUL.
    static var environment: Self {
        ValueKind<String>.string.table { name in
            name.isEmpty || name.contains("=") || name.contains("\0")
                ? "\"\(name)\" is not an environment variable name: it must be non-empty without \"=\"" : nil
        }
    }
}

extension ValueKind where Value == [WidgetMode] {
    /// A non-empty list of distinct display modes, such as `["compact"]`.
    static var modes: Self {
        Self { node throws(ConfigurationError) in
            let modes = try ValueKind<WidgetMode>.choice(of: WidgetMode.self, "a display mode").list.decode(node)
            guard !modes.isEmpty else { throw node.origin.error("expected at least one display mode") }
            guard Set(modes).count == modes.count else { throw node.origin.error("a display mode is listed twice") }
            return modes
        }
    }
}

extension ValueKind where Value == [String: Int] {
    /// Maximum items per type identifier, such as `{ "public.image" = 10 }`.
    static var activation: Self {
        ValueKind<Int>.positiveInteger.table { $0.isEmpty ? "a type identifier must be non-empty" : nil }
    }
}

/// The command line: `--listen ADDR:PORT`, `--socket PATH`, `--control PATH`, `--instance EXT=NAME`, `--help`.
struct TodayArguments {
    var listen = "127.0.0.1:8080"
    var socket: String
    /// `nil`: `control.sock` beside the host socket.
    var control: String?

    /// The control socket the System page reads.
    var controlSocket: String {
        control ?? (socket.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/control.sock")
    }
    /// The instances shown of each widget (two cities), in order; a widget named here is
    /// shown only as its instances.
    var instances: [String: [String]] = [:]

    enum Outcome: Equatable {
        case run, help
        case invalid(String)
    }

    mutating func parse(_ words: [String]) -> Outcome {
        var rest = words[...]
        while let word = rest.popFirst() {
            switch word {
            case "--help", "-h": return .help
            case "--listen", "--socket", "--control":
                guard let value = rest.popFirst(), !value.isEmpty else { return .invalid("\(word) needs a value") }
                switch word {
                case "--listen": listen = value
                case "--socket": socket = value
                default: control = value
                }
            case "--instance":
                guard let value = rest.popFirst(), let equals = value.firstIndex(of: "="),
                    equals != value.startIndex, value.index(after: equals) != value.endIndex,
                    value.utf8.count <= 511
                else { return .invalid("--instance needs EXTENSION=INSTANCE") }
                instances[String(value[..<equals]), default: []].append(String(value[value.index(after: equals)...]))
            default: return .invalid("unknown argument '\(word)'")
            }
        }
        return .run
    }
}

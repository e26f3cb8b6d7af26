/// supervisord's shorthand that ArgumentParser cannot read: `tail -100 NAME` (and
/// `maintail -100`) for `-n 100`.
enum ShorthandArguments {
    static func expand(_ arguments: [String]) -> [String] {
        guard let command = arguments.firstIndex(where: { $0 == "tail" || $0 == "maintail" }) else { return arguments }
        return Array(arguments[...command])
            + arguments[(command + 1)...].flatMap { argument -> [String] in
                let digits = argument.dropFirst()
                guard argument.hasPrefix("-"), !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return [argument] }
                return ["-n", String(digits)]
            }
    }
}

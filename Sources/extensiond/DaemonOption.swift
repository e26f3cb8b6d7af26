/// One option of the daemon's command line, as parsed and as its help describes it.
struct DaemonOption {
    /// The long name without dashes: `config`.
    let name: String
    /// The shown name of the option's value (`<config>`); `nil` for a flag.
    let valueName: String?
    let abstract: String
    let defaultValue: String?

    static func flag(_ name: String, _ abstract: String) -> DaemonOption {
        DaemonOption(name: name, valueName: nil, abstract: abstract, defaultValue: nil)
    }

    /// `--config <config>` or `--verbose`.
    var synopsis: String { "--" + name + (valueName.map { " <\($0)>" } ?? "") }
}

/// Reads a config file and its drop-ins into a validated ``Configuration``.
public enum ConfigurationLoader {
    /// The default config file.
    public static let defaultPath = "/etc/extensiond/extensiond.toml"

    /// The drop-in directory of the config file at `path`: `<dir>/<name>.d` for
    /// `<dir>/<name>.toml`, e.g. `/etc/extensiond/extensiond.d`.
    public static func dropInDirectory(for path: String) -> String {
        ConfigurationFiles.dropInDirectory(for: path)
    }

    /// Loads `path` and the drop-ins `<dir>/<name>.d/*.toml` (merged in name order: later
    /// files add tables and override single keys), applies `[defaults]` and validates.
    ///
    /// Relative program paths and working directories are resolved against the directory of
    /// the file that declared them. A missing drop-in directory is fine; a missing main file is not.
    ///
    /// - Throws: ``ConfigurationErrors`` with every error found, not only the first, in file,
    ///   line and column order.
    public static func load(path: String) throws(ConfigurationErrors) -> Configuration {
        let diagnostics = Diagnostics()
        var files = [path]
        switch ConfigurationFiles.dropIns(for: path) {
        case .success(let dropIns): files += dropIns
        case .failure(let error): diagnostics.report(error)
        }
        var merged: ConfigNode?
        for file in files {
            switch ConfigurationFiles.read(file).flatMap({ TOMLSource.parse($0, file: file) }) {
            case .success(let tree): merged = merged.map { $0.overlaid(by: tree) } ?? tree
            case .failure(let error): diagnostics.report(error)
            }
        }
        // Decoding a config with a file missing would only add confusing follow-up errors.
        guard diagnostics.isEmpty, let merged else { throw ConfigurationErrors(diagnostics.sorted(files: files)) }

        var configuration = ConfigurationDecoder(diagnostics: diagnostics).decode(merged)
        CrossReferences.check(merged, diagnostics: diagnostics)
        guard diagnostics.isEmpty else { throw ConfigurationErrors(diagnostics.sorted(files: files)) }
        configuration.sources = files
        return configuration
    }
}

/// Reads a config file and its drop-ins into a validated ``Configuration``.
public enum ConfigurationLoader {
    /// The default config file.
    public static let defaultPath = "/etc/extensiond/extensiond.toml"

    /// The key of the packages' drop-in directory, read from the main file only: it says
    /// where drop-ins come from, so no drop-in may move it.
    private static let packageDropInKey = ["supervisor", "package_drop_in_dir"]

    /// The drop-in directories of the config file at `path` for `settings`, the later one
    /// winning a name both hold: the packages' (`supervisor.package_drop_in_dir`) and the
    /// administrator's, `<dir>/<name>.d` for `<dir>/<name>.toml` (`/etc/extensiond/extensiond.d`).
    public static func dropInDirectories(for path: String, _ settings: SupervisorSettings) -> [String] {
        [settings.packageDropInDirectory, ConfigurationFiles.dropInDirectory(for: path)]
    }

    /// Loads `path` and the drop-ins of ``dropInDirectories(for:_:)`` (merged in name order:
    /// later files add tables and override single keys), applies `[defaults]` and validates.
    ///
    /// Relative program paths and working directories are resolved against the directory of
    /// the file that declared them. A missing drop-in directory is fine; a missing main file is not.
    ///
    /// - Throws: ``ConfigurationErrors`` with every error found, not only the first, in file,
    ///   line and column order.
    public static func load(path: String) throws(ConfigurationErrors) -> Configuration {
        let diagnostics = Diagnostics()
        let main = parse(path)
        var settings = SupervisorSettings()
        if case .success(let tree) = main, case .string(let directory)? = tree.node(at: packageDropInKey)?.value,
            directory.hasPrefix("/")
        {
            settings.packageDropInDirectory = directory
        }
        let dropIns = ConfigurationFiles.dropIns(in: dropInDirectories(for: path, settings))
        dropIns.errors.forEach(diagnostics.report)
        let files = [path] + dropIns.files
        var merged: ConfigNode?
        for (file, result) in zip(files, [main] + dropIns.files.map(parse)) {
            switch result {
            case .success(let tree):
                if file != path, let misplaced = tree.node(at: packageDropInKey) {
                    diagnostics.report(misplaced.origin.error("allowed in the main file only, as it says where drop-ins are read from"))
                }
                merged = merged.map { $0.overlaid(by: tree) } ?? tree
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

    private static func parse(_ file: String) -> Result<ConfigNode, ConfigurationError> {
        ConfigurationFiles.read(file).flatMap { TOMLSource.parse($0, file: file) }
    }
}

import ArgumentParser
import ControlProtocol

/// Completion of process names from the running daemon: the generated bash, zsh and fish
/// scripts call `supervisorctl ---completion …`, which lands here, and so does the shell's
/// Tab.
enum NameCompletion {
    /// For a NAME argument.
    static let names = CompletionKind.custom { words, _, prefix in
        available(words).filter { $0.hasPrefix(prefix) }
    }

    /// The daemon's names (`avail`), asked on the socket the command line names (else
    /// `$EXTENSIOND_SOCKET` or the default); none when the daemon cannot be reached:
    /// completion must never print an error. The words are not parsed: a `GlobalOptions`
    /// made here would have no values to read.
    static func available(_ words: [String]) -> [String] {
        let answer = try? ControlClient(socketPath: GlobalOptions.socketPath(socket(in: words))).call(.avail)
        return answer?.available?.map(\.name) ?? []
    }

    /// The value of `--socket PATH` or `--socket=PATH` among `words`.
    static func socket(in words: [String]) -> String? {
        if let flag = words.firstIndex(of: "--socket"), flag + 1 < words.count { return words[flag + 1] }
        return words.first { $0.hasPrefix("--socket=") }.map { String($0.dropFirst("--socket=".count)) }
    }
}

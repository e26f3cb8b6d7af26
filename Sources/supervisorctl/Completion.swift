import ArgumentParser
import ControlProtocol

/// Completion of process names from the running daemon: the generated bash, zsh and fish
/// scripts call `supervisorctl ---completion …`, which lands here.
enum NameCompletion {
    /// For a NAME argument.
    static let names = CompletionKind.custom { words, _, prefix in
        available(words).filter { $0.hasPrefix(prefix) }
    }

    /// The daemon's names (`avail`), asked on the socket the command line names; none when
    /// the daemon cannot be reached: completion must never print an error.
    static func available(_ words: [String]) -> [String] {
        var options = GlobalOptions()
        if let flag = words.firstIndex(of: "--socket"), flag + 1 < words.count {
            options.socket = words[flag + 1]
        } else if let inline = words.first(where: { $0.hasPrefix("--socket=") }) {
            options.socket = String(inline.dropFirst("--socket=".count))
        }
        let answer = try? options.client.call(.avail)
        return answer?.available?.map(\.name) ?? []
    }
}

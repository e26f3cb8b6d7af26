import Glibc
import Spelling

/// supervisorctl's shell, as supervisord's: a `supervisorctl>` prompt with line editing
/// and history on a terminal; from a pipe or file, one command per line, no prompt.
/// Each line is a command line without the program name (`status`, `tail -f w1`,
/// `help stop`); `exit`, `quit` or the end of input leave. The shell's exit status is the
/// last command's.
struct Shell {
    /// `--socket` and `--json` from the command line, put in front of every command.
    let globalArguments: [String]
    /// A command to run first (`supervisorctl -i status`).
    var first: [String] = []

    static let prompt = "supervisorctl> "

    func run() -> CLIExitCode {
        var status = CLIExitCode.success
        if !first.isEmpty { status = execute(first) }
        let interactive = Terminal.isCapable(STDIN_FILENO) && isatty(STDOUT_FILENO) == 1
        var editor = LineEditor(
            prompt: Self.prompt, history: interactive ? ShellHistory.load() : [],
            completions: completions, remember: ShellHistory.append)
        while let line = interactive ? editor.readLine() : Swift.readLine() {
            let words: [String]
            do {
                words = try ShellWords.split(line)
            } catch {
                printError("\(error)")
                status = .usage
                continue
            }
            guard let command = words.first else { continue }
            if command == "exit" || command == "quit" { break }
            status = execute(words)
            fflush(nil)
        }
        return status
    }

    private func execute(_ words: [String]) -> CLIExitCode {
        guard let command = GlobalOptions.split(words).command.first else {
            printError("no command in '\(words.joined(separator: " "))'; type help")
            return .usage
        }
        guard Self.commands.contains(command) else {
            // supervisord's answer, with the command that was probably meant.
            let guess = Spelling.closest(to: command, among: Self.commands).map { " (did you mean \($0)?)" } ?? ""
            print("*** Unknown syntax: \(words.joined(separator: " "))\(guess)")
            return .usage
        }
        return Supervisorctl.execute(globalArguments + words)
    }

    /// The shell's commands: supervisorctl's, `help`, and the two ways out.
    static let commands = Supervisorctl.configuration.subcommands.map { $0._commandName } + ["help", "exit", "quit"]

    /// Commands that take no process name.
    static let nameless: Set = ["avail", "version", "reread", "reload", "pressure", "stats", "maintail", "events", "top", "exit", "quit"]

    /// What Tab offers after `earlierWords`: a command first, then (for commands that take
    /// names) the daemon's names and `all`.
    func completions(_ earlierWords: [String]) -> [String] {
        guard let command = GlobalOptions.split(earlierWords).command.first else { return Self.commands }
        if command == "help" { return earlierWords.count == 1 ? Self.commands : [] }
        if Self.nameless.contains(command) { return [] }
        return NameCompletion.available(globalArguments) + ["all"]
    }
}

/// Splits a shell line into words: spaces separate, '…' and "…" quote, \ escapes.
enum ShellWords {
    struct UnterminatedQuote: Error, CustomStringConvertible {
        var description: String { "unterminated quote" }
    }

    static func split(_ line: String) throws -> [String] {
        var words: [String] = []
        var word: String?
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                word = (word ?? "") + String(character)
                escaped = false
            } else if character == "\\" && quote != "'" {
                escaped = true
            } else if let open = quote {
                if character == open { quote = nil } else { word = (word ?? "") + String(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                word = word ?? ""
            } else if character.isWhitespace {
                if let complete = word { words.append(complete) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        guard quote == nil else { throw UnterminatedQuote() }
        if let complete = word { words.append(complete) }
        return words
    }
}

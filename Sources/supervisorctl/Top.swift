import ArgumentParser
import ControlProtocol
import Glibc

struct Top: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "The stats, redrawn live on the terminal's alternate screen until q or Ctrl-C.",
        discussion: "Printed once, without escape sequences, when stdout is not a terminal or TERM is dumb; with --json, one answer per line."
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "Seconds between redraws.") var interval: Double = 1
    @Argument(help: "Names or patterns to show (default: all).", completion: NameCompletion.names) var names: [String] = []

    func validate() throws {
        guard interval >= 0.1, interval <= 3600 else { throw ValidationError("--interval must be between 0.1 and 3600 seconds, got \(interval)") }
    }

    func run() throws {
        let request = ControlRequest.stats(NameSelection(names))
        guard !global.json, Terminal.isCapable(STDOUT_FILENO) else {
            let response = try global.call(request)
            return global.show(response) { $0.stats.map(StatsFormat.text) }
        }
        let keys = isatty(STDIN_FILENO) == 1
        Terminal.leaveScreen = "\u{1B}[?25h\u{1B}[?1049l"
        Terminal.write("\u{1B}[?1049h\u{1B}[?25l")
        defer {
            Terminal.write(Terminal.leaveScreen)
            Terminal.leaveScreen = ""
        }
        try Terminal.withRawInput {
            while true {
                let response = try global.call(request)
                let size = Terminal.size()
                let text = response.stats.map { TopScreen.fit(StatsFormat.rows($0), columns: size.columns, rows: size.rows) } ?? ""
                Terminal.write("\u{1B}[H\u{1B}[2J" + text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n"))
                if keys
                    ? TopScreen.quitRequested(within: interval)
                    : {
                        usleep(useconds_t(interval * 1_000_000)); return false
                    }()
                {
                    return
                }
            }
        }
    }
}

/// What `top` draws and the keys it reads.
enum TopScreen {
    /// The table cut to the terminal: columns dropped from the right until the rows fit
    /// `columns`, rows cut at `rows`, a status line last.
    static func fit(_ table: (header: [String], rows: [[String]], footer: String), columns: Int, rows: Int) -> String {
        var kept = table.header.count
        var lines: [String] = []
        repeat {
            lines = Table.render(header: Array(table.header.prefix(kept)), rows: table.rows.map { Array($0.prefix(kept)) })
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            kept -= 1
        } while kept > 0 && lines.contains(where: { $0.count > columns })
        let footer = [table.footer, "q quits"].map { String($0.prefix(columns)) }
        let body = lines.prefix(max(0, rows - footer.count)).map { String($0.prefix(columns)) }
        return (body + footer).joined(separator: "\n")
    }

    /// Waits up to `interval` seconds for a key: true for q, Q, Ctrl-C or the end of input.
    static func quitRequested(within interval: Double) -> Bool {
        switch Terminal.readByte(timeout: interval) {
        case .byte(let byte): return byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") || byte == 0x03
        case .end: return true
        case .timeout: return false
        }
    }
}

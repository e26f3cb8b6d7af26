import ArgumentParser
import ControlProtocol
import Glibc

struct Top: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The stats, redrawn live in the terminal until Ctrl-C; printed once when stdout is not a terminal."
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "Seconds between redraws.") var interval: Double = 1
    @Argument(help: "Names to show (default: all).") var names: [String] = []

    func validate() throws {
        guard interval >= 0.1, interval <= 3600 else { throw ValidationError("--interval must be between 0.1 and 3600 seconds, got \(interval)") }
    }

    func run() throws {
        // Ctrl-C is the way out of top, not a failure.
        signal(SIGINT) { _ in _exit(0) }
        let live = isatty(STDOUT_FILENO) == 1
        repeat {
            let report = try global.stats(names)
            if global.json {
                print(JSONText.line(report))
            } else {
                // Home the cursor and clear the screen, then draw.
                print((live ? "\u{1B}[H\u{1B}[2J" : "") + StatsFormat.text(report))
            }
            guard live else { return }
            usleep(useconds_t(interval * 1_000_000))
        } while true
    }
}

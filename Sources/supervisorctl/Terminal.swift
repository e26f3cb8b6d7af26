import Glibc

/// The controlling terminal: whether output is one, its size, and raw input mode for the
/// shell's line editor and `top`'s keys, restored on every way out.
enum Terminal {
    /// Whether `fd` is a terminal that understands escape sequences (not `TERM=dumb`).
    static func isCapable(_ fd: Int32) -> Bool {
        guard isatty(fd) == 1 else { return false }
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        return !term.isEmpty && term != "dumb"
    }

    /// Columns and rows of the terminal on stdout (80×24 when unknown).
    static func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Runs `body` with stdin in raw mode (no line buffering, no echo, Ctrl-C as a byte),
    /// restoring the previous mode afterwards, and on SIGTERM or SIGHUP.
    static func withRawInput<T>(_ body: () throws -> T) rethrows -> T {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return try body() }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        saved = original
        signal(SIGTERM) { signal in Terminal.restoreAndExit(signal) }
        signal(SIGHUP) { signal in Terminal.restoreAndExit(signal) }
        tcsetattr(STDIN_FILENO, TCSADRAIN, &raw)
        defer {
            tcsetattr(STDIN_FILENO, TCSADRAIN, &original)
            saved = nil
            signal(SIGTERM, SIG_DFL)
            signal(SIGHUP, SIG_DFL)
        }
        return try body()
    }

    /// Text sent to leave the alternate screen with the cursor shown (no-op when not in it).
    nonisolated(unsafe) static var leaveScreen = ""
    nonisolated(unsafe) private static var saved: termios?

    private static func restoreAndExit(_ signal: Int32) {
        if var original = saved { tcsetattr(STDIN_FILENO, TCSADRAIN, &original) }
        _ = leaveScreen.utf8.withContiguousStorageIfAvailable { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        _exit(128 + signal)
    }

    /// What reading stdin gave.
    enum Input: Equatable {
        case byte(UInt8)
        case timeout
        case end
    }

    /// One byte from stdin; waits at most `timeout` seconds when given.
    static func readByte(timeout: Double? = nil) -> Input {
        if let timeout {
            var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(timeout * 1000)) == 1 else { return .timeout }
        }
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return .byte(byte) }
            if count < 0 && errno == EINTR { continue }
            return .end
        }
    }

    static func write(_ text: String) {
        _ = text.utf8.withContiguousStorageIfAvailable { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}

import Glibc

/// Unbuffered output: each line is written at once, so that `supervisorctl tail` shows it
/// while the panel runs and nothing is lost when it is terminated.
enum Console {
    static func line(_ text: String) {
        write(STDOUT_FILENO, text + "\n")
    }

    static func error(_ text: String) {
        write(STDERR_FILENO, text + "\n")
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

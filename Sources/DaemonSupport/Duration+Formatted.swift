import EventLoop

extension Duration {
    /// `850ms`, `12.3s`, `5m0s`.
    package var formatted: String {
        let milliseconds = wholeMicroseconds / 1000
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        if milliseconds < 60_000 { return "\(milliseconds / 1000).\(milliseconds % 1000 / 100)s" }
        return "\(milliseconds / 60_000)m\(milliseconds % 60_000 / 1000)s"
    }
}

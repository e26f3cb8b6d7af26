/// Reads lines from a terminal with editing and history: ←/→, Home/End (Ctrl-A/E),
/// Backspace/Delete, Ctrl-U (kill to start), Ctrl-K (kill to end), ↑/↓ through earlier
/// lines, Tab (complete the word before the cursor), Ctrl-C (drop the line), Ctrl-D on an
/// empty line (end).
struct LineEditor {
    let prompt: String
    private(set) var history: [String]
    /// The words that may follow the line's earlier words, for Tab.
    let completions: (_ earlierWords: [String]) -> [String]
    /// Told each line added to the history (to keep it in a file).
    let remember: (String) -> Void
    /// Lines kept for ↑.
    static let historyLimit = 1000

    init(
        prompt: String, history: [String] = [], completions: @escaping ([String]) -> [String] = { _ in [] },
        remember: @escaping (String) -> Void = { _ in }
    ) {
        self.prompt = prompt
        self.history = Array(history.suffix(Self.historyLimit))
        self.completions = completions
        self.remember = remember
    }

    /// The next line, or nil at the end of input.
    mutating func readLine() -> String? {
        var editing = EditState(history: history)
        let line = Terminal.withRawInput { () -> String? in
            Terminal.write(prompt)
            while true {
                guard case .byte(let byte) = Terminal.readByte() else { return nil }
                switch editing.accept(byte) {
                case .continue: redraw(editing)
                case .complete:
                    let choices = editing.complete(from: completions(editing.earlierWords))
                    if choices.count > 1 { Terminal.write("\r\n" + choices.joined(separator: "  ") + "\r\n") }
                    redraw(editing)
                case .submit: Terminal.write("\r\n"); return String(String.UnicodeScalarView(editing.text))
                case .cancel: Terminal.write("^C\r\n"); editing = EditState(history: history); Terminal.write(prompt)
                case .end: Terminal.write("\r\n"); return nil
                }
            }
        }
        if let line, !line.allSatisfy(\.isWhitespace), line != history.last {
            history.append(line)
            if history.count > Self.historyLimit { history.removeFirst() }
            remember(line)
        }
        return line
    }

    /// The prompt and the text, the rest of the row cleared, the cursor put back in place.
    private func redraw(_ editing: EditState) {
        let back = editing.text.count - editing.cursor
        Terminal.write("\r" + prompt + String(String.UnicodeScalarView(editing.text)) + "\u{1B}[K" + (back > 0 ? "\u{1B}[\(back)D" : ""))
    }
}

/// One line being edited: its text, the cursor, the position in history, and the
/// bytes of an escape sequence or UTF-8 character not complete yet.
struct EditState {
    enum Action { case `continue`, complete, submit, cancel, end }

    private(set) var text: [Unicode.Scalar] = []
    private(set) var cursor = 0
    private let history: [String]
    private var historyIndex: Int
    /// The line being typed, kept while browsing history.
    private var draft: [Unicode.Scalar] = []
    private var pending: [UInt8] = []

    init(history: [String]) {
        self.history = history
        historyIndex = history.count
    }

    mutating func accept(_ byte: UInt8) -> Action {
        if !pending.isEmpty || byte == 0x1B || byte >= 0x80 {
            pending.append(byte)
            return pending[0] == 0x1B ? escape() : utf8()
        }
        switch byte {
        case 0x0D, 0x0A: return .submit
        case 0x09: return .complete
        case 0x03: return .cancel
        case 0x04 where text.isEmpty: return .end
        case 0x04: delete(at: cursor)
        case 0x7F, 0x08: if cursor > 0 { cursor -= 1; delete(at: cursor) }
        case 0x01: cursor = 0
        case 0x05: cursor = text.count
        case 0x02: cursor = max(0, cursor - 1)
        case 0x06: cursor = min(text.count, cursor + 1)
        case 0x15: text.removeSubrange(..<cursor); cursor = 0
        case 0x0B: text.removeSubrange(cursor...)
        case 0x10: browse(-1)
        case 0x0E: browse(1)
        case 0x20...0x7E: insert(Unicode.Scalar(byte))
        default: break
        }
        return .continue
    }

    /// `ESC [ X` or `ESC [ N ~`, once complete.
    private mutating func escape() -> Action {
        guard pending.count >= 3 else { return .continue }
        if pending[1] != UInt8(ascii: "[") && pending[1] != UInt8(ascii: "O") { pending = []; return .continue }
        let last = pending[pending.count - 1]
        guard (0x40...0x7E).contains(last) else { return pending.count > 8 ? reset() : .continue }
        switch (last, pending.count) {
        case (UInt8(ascii: "A"), _): browse(-1)
        case (UInt8(ascii: "B"), _): browse(1)
        case (UInt8(ascii: "C"), _): cursor = min(text.count, cursor + 1)
        case (UInt8(ascii: "D"), _): cursor = max(0, cursor - 1)
        case (UInt8(ascii: "H"), _): cursor = 0
        case (UInt8(ascii: "F"), _): cursor = text.count
        case (UInt8(ascii: "~"), 4) where pending[2] == UInt8(ascii: "3"): delete(at: cursor)
        case (UInt8(ascii: "~"), 4) where pending[2] == UInt8(ascii: "1") || pending[2] == UInt8(ascii: "7"): cursor = 0
        case (UInt8(ascii: "~"), 4) where pending[2] == UInt8(ascii: "4") || pending[2] == UInt8(ascii: "8"): cursor = text.count
        default: break
        }
        return reset()
    }

    /// A multi-byte UTF-8 character, once complete; invalid bytes are dropped.
    private mutating func utf8() -> Action {
        let lead = pending[0]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        guard pending.count >= length else { return .continue }
        var decoder = UTF8()
        var bytes = pending.makeIterator()
        if case .scalarValue(let scalar) = decoder.decode(&bytes) { insert(scalar) }
        return reset()
    }

    private mutating func reset() -> Action {
        pending = []
        return .continue
    }

    private mutating func insert(_ scalar: Unicode.Scalar) {
        text.insert(scalar, at: cursor)
        cursor += 1
    }

    private mutating func delete(at index: Int) {
        if index < text.count { text.remove(at: index) }
    }

    /// The start of the word before the cursor.
    private var wordStart: Int {
        var start = cursor
        while start > 0 && text[start - 1] != " " { start -= 1 }
        return start
    }

    /// The words before the one being completed.
    var earlierWords: [String] {
        String(String.UnicodeScalarView(text[..<wordStart])).split(separator: " ").map(String.init)
    }

    /// Completes the word before the cursor from `words`: one match is put in with a space
    /// after it; several extend the word by what they share. Returns the matches, sorted.
    mutating func complete(from words: [String]) -> [String] {
        let start = wordStart
        let typed = String(String.UnicodeScalarView(text[start..<cursor]))
        let matches = Set(words.filter { $0.hasPrefix(typed) }).sorted()
        guard let first = matches.first else { return [] }
        var shared = Array(first.unicodeScalars)
        for match in matches.dropFirst() {
            shared = Array(zip(shared, match.unicodeScalars).prefix { $0 == $1 }.map(\.0))
        }
        let completion = matches.count == 1 ? shared + [" "] : shared
        text.replaceSubrange(start..<cursor, with: completion)
        cursor = start + completion.count
        return matches
    }

    /// ↑ (`step` -1) and ↓ (+1) through history; past the newest line, back to the draft.
    private mutating func browse(_ step: Int) {
        let next = historyIndex + step
        guard next >= 0, next <= history.count else { return }
        if historyIndex == history.count { draft = text }
        historyIndex = next
        text = next == history.count ? draft : Array(history[next].unicodeScalars)
        cursor = text.count
    }
}

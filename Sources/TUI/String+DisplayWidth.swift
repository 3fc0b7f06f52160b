extension String {
    /// The string cut or padded with spaces to exactly `width` columns.
    func fitted(to width: Int) -> String {
        var out = "", used = 0
        for ch in self {
            let w = DisplayWidth.of(ch)
            if used + w > width { break }
            out.append(ch); used += w
        }
        if used < width { out += String(repeating: " ", count: width - used) }
        return out
    }

    /// The string cut to `width` columns, with an ellipsis if it was cut.
    func clipped(to width: Int) -> String {
        guard width > 0 else { return "" }
        if DisplayWidth.of(self) <= width { return self }
        var out = "", used = 0
        for ch in self {
            let w = DisplayWidth.of(ch)
            if used + w > width - 1 { break }
            out.append(ch); used += w
        }
        return out + "…"
    }
}

extension String {
    /// `count` copies of one ASCII character in one allocation (`String(repeating:count:)` appends them one at a
    /// time: the meter bar's runs and a line's padding are built up to 30 times a second).
    static func repeating(ascii byte: UInt8, count: Int) -> String {
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: count) { buffer in
            buffer.initialize(repeating: byte)
            return count
        }
    }

    /// The longest prefix that fits in `columns`.
    func fittedPrefix(columns: Int) -> String {
        if DisplayWidth.isPrintableASCII(self) {
            return utf8.count <= columns ? self : String(decoding: utf8.prefix(max(0, columns)), as: UTF8.self)
        }
        if DisplayWidth.widthOfUnjoinedScalars(self) != nil {
            // Every scalar a grapheme of its own: cut between scalars.
            var used = 0
            var end = unicodeScalars.startIndex
            for i in unicodeScalars.indices {
                let w = DisplayWidth.of(unicodeScalars[i])
                if used + w > columns { break }
                used += w
                end = unicodeScalars.index(after: i)
            }
            return String(unicodeScalars[..<end])
        }
        var used = 0
        var end = startIndex
        for i in indices {
            let w = DisplayWidth.of(self[i])
            if used + w > columns { return String(self[..<i]) }
            used += w
            end = index(after: i)
        }
        return String(self[..<end])
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        // removeLast, not dropLast(): the generic dropLast counts the whole line each time (quadratic in its
        // trailing spaces, which a grid row of 160 columns is mostly made of).
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        let w = DisplayWidth.of(self)
        return w >= width ? self : String(repeating: " ", count: width - w) + self
    }
}

extension String {
    /// The string shortened to at most `width` columns by cutting out its middle (`mcp_files…_directory`), so
    /// both ends of a long name stay readable; unchanged when it fits. Wide characters are never split.
    func elidedInMiddle(to width: Int) -> String {
        guard width > 0 else { return "" }
        if DisplayWidth.of(self) <= width { return self }
        if width == 1 { return "…" }
        let budget = width - 1
        var head = "", headW = 0
        for ch in self {
            let w = DisplayWidth.of(ch)
            if headW + w > (budget + 1) / 2 { break }
            head.append(ch); headW += w
        }
        var tail: [Character] = [], tailW = 0
        for ch in reversed() {
            let w = DisplayWidth.of(ch)
            if tailW + w > budget - headW { break }
            tail.append(ch); tailW += w
        }
        return head + "…" + String(tail.reversed())
    }
}

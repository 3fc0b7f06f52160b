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
    /// The longest prefix that fits in `columns`.
    func fittedPrefix(columns: Int) -> String {
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
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        let w = DisplayWidth.of(self)
        return w >= width ? self : String(repeating: " ", count: width - w) + self
    }
}

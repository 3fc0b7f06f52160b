/// One screen row as views produce it: styled runs, and a role for the columns the runs leave empty.
public struct StyledLine: Sendable, Hashable {
    public var runs: [StyledRun]
    /// The role that fills the rest of the row (e.g. a status bar's background).
    public var fill: Role
    public init(_ runs: [StyledRun] = [], fill: Role = .normal) { self.runs = runs; self.fill = fill }
    public init(_ text: String, _ role: Role = .normal, fill: Role = .normal) {
        self.runs = text.isEmpty ? [] : [StyledRun(text, role)]; self.fill = fill
    }

    /// Columns the runs occupy.
    public var width: Int { runs.reduce(0) { $0 + DisplayWidth.of($1.text) } }
    /// The plain text of the line.
    public var text: String { runs.map(\.text).joined() }

    public mutating func append(_ text: String, _ role: Role = .normal) {
        guard !text.isEmpty else { return }
        if let last = runs.last, last.role == role { runs[runs.count - 1].text += text } else { runs.append(StyledRun(text, role)) }
    }

    /// The line cut to at most `width` columns (a wide character that does not fit is dropped).
    public func truncated(to width: Int, ellipsis: Bool = false) -> StyledLine {
        guard self.width > width else { return self }
        var out = StyledLine(fill: fill)
        var left = ellipsis ? max(0, width - 1) : width
        for run in runs {
            // A wide character that does not fit ends the line.
            let piece = run.text.fittedPrefix(columns: left)
            left = piece.utf8.count == run.text.utf8.count ? left - DisplayWidth.of(piece) : 0
            out.append(piece, run.role)
            if left == 0 { break }
        }
        if ellipsis && width > 0 { out.append("…", runs.last?.role ?? fill) }
        return out
    }

    /// The line padded with spaces of `role` to exactly `width` columns (truncating if longer).
    public func padded(to width: Int, role: Role? = nil) -> StyledLine {
        // Measured once when it fits (the common case: views build their rows to fit), twice when it is cut.
        let measured = self.width
        var out = measured > width ? truncated(to: width) : self
        let w = measured > width ? out.width : measured
        if w < width { out.append(.repeating(ascii: UInt8(ascii: " "), count: width - w), role ?? fill) }
        return out
    }
}

/// Shown instead of the layout when the terminal is smaller than `FrameLayout.minimumSize`.
public enum TooSmallView {
    /// Rows for the whole screen with the message centred.
    public static func render(size: Size) -> [StyledLine] {
        let msg = ["terminal too small:", "need at least \(FrameLayout.minimumSize.columns)×\(FrameLayout.minimumSize.rows)", "now \(size.columns)×\(size.rows)"]
        var lines = Array(repeating: StyledLine(), count: size.rows)
        let top = max(0, (size.rows - msg.count) / 2)
        for (i, m) in msg.enumerated() where top + i < size.rows {
            let pad = max(0, (size.columns - DisplayWidth.of(m)) / 2)
            lines[top + i] = StyledLine(String(repeating: " ", count: pad) + m, i == 0 ? .errorText : .normal).truncated(to: size.columns)
        }
        return lines
    }
}

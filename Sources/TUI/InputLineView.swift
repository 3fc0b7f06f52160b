/// The input line: a prompt and the editor's text, scrolled so the cursor stays visible.
public enum InputLineView {
    /// The input row, exactly `width` columns, with the cursor drawn as an `inputCursor` cell.
    public static func render(_ e: LineEditor, width: Int, prompt: String = "› ") -> StyledLine {
        let chars = Array(e.text)
        let pw = DisplayWidth.of(prompt)
        let avail = max(1, width - pw - 1)
        // Show a window ending just after the cursor when it would run off the right edge.
        var start = 0
        var wBefore = chars[0..<e.cursor].reduce(0) { $0 + DisplayWidth.of($1) }
        while wBefore >= avail && start < e.cursor { wBefore -= DisplayWidth.of(chars[start]); start += 1 }
        var line = StyledLine(prompt, .title)
        var used = pw
        var i = start
        while i < chars.count {
            let w = DisplayWidth.of(chars[i])
            if used + w > width { break }
            line.append(String(chars[i]), i == e.cursor ? .inputCursor : .input)
            used += w; i += 1
        }
        if e.cursor >= chars.count && used < width { line.append(" ", .inputCursor) }
        return line.padded(to: width)
    }
}

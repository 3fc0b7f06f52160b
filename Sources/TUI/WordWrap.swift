/// Word wrapping of styled text to a column width, respecting double-width characters.
enum WordWrap {
    /// Wraps `runs` into lines of `width` columns. The first line starts with `firstPrefix`; later lines with
    /// `indent` spaces. Breaks at spaces and around wide (CJK) characters; words longer than a line are split.
    static func wrap(_ runs: [StyledRun], width: Int, firstPrefix: StyledLine, indent: Int) -> [StyledLine] {
        let width = max(1, width)
        let indent = min(indent, max(0, width - 1))
        var lines: [StyledLine] = []
        var cur = firstPrefix.truncated(to: width)
        var curW = cur.width
        var lineHasText = false
        var word: [(Character, Role, Int)] = []
        var wordW = 0

        func newLine() {
            lines.append(cur)
            cur = StyledLine(String(repeating: " ", count: indent))
            curW = indent
            lineHasText = false
        }
        func place(_ c: Character, _ r: Role, _ w: Int) {
            if curW + w > width { newLine() }
            cur.append(String(c), r); curW += w; lineHasText = true
        }
        func flushWord() {
            guard !word.isEmpty else { return }
            if curW + wordW > width && lineHasText && wordW <= width - indent { newLine() }
            for (c, r, w) in word { place(c, r, w) }
            word.removeAll(keepingCapacity: true); wordW = 0
        }

        for run in runs {
            for c in run.text {
                if c == "\n" || c == "\r\n" {
                    flushWord(); newLine(); continue
                }
                let w = DisplayWidth.of(c)
                if c == " " || c == "\t" {
                    flushWord()
                    if !lineHasText { continue }
                    if curW + 1 > width { newLine() } else { cur.append(" ", run.role); curW += 1 }
                    continue
                }
                if w == 2 {
                    flushWord()
                    word.append((c, run.role, w)); wordW = w
                    flushWord()
                    continue
                }
                word.append((c, run.role, w)); wordW += w
            }
        }
        flushWord()
        lines.append(cur)
        return lines.map { trimTrailingSpace($0) }
    }

    private static func trimTrailingSpace(_ l: StyledLine) -> StyledLine {
        var l = l
        while let last = l.runs.last, last.text.hasSuffix(" ") {
            let t = String(last.text.dropLast())
            if t.isEmpty { l.runs.removeLast() } else { l.runs[l.runs.count - 1].text = t }
        }
        return l
    }
}

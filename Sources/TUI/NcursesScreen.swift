import CNcursesw
import Foundation

/// The terminal `Screen`: writes through ncursesw (wide characters, 256 colours with 8/16-colour fallback,
/// `NO_COLOR` honoured). Created by `Terminal`; the only type that draws with curses.
///
/// 24-bit colour (pictures only): curses gets the nearest palette colour, so its idea of the screen stays
/// right, and after each refresh the cells drawn in `.rgb` this frame are written again with 24-bit SGR
/// sequences, between a cursor save and restore. That works on every terminal that takes `38;2` colours
/// (`COLORTERM=truecolor`, or terminfo's `RGB`/`Tc`), whatever `TERM` says, without ncurses' direct-colour
/// terminfo entries (which few users have) and without redefining the palette under other programs.
public final class NcursesScreen: Screen {
    /// How many colours the backend uses.
    public enum ColorMode: Sendable, Equatable { case none, eight, sixteen, full }

    /// The colours in use, from the terminal and `NO_COLOR`.
    public let colorMode: ColorMode
    private let window: UnsafeMutablePointer<WINDOW>
    private var pairs: [Int32: Int16] = [:]
    private var nextPair: Int16 = 1
    private let maxPairs: Int
    private var wbuf: [wchar_t] = []
    /// Whether `.rgb` colours are sent as 24-bit colour.
    public let trueColor: Bool
    /// Where the 24-bit cells go after curses' refresh (the terminal's output stream).
    private let output: UnsafeMutablePointer<FILE>?
    /// Cells drawn in `.rgb` since the last `present`.
    private var trueColorCells: [(row: Int, column: Int, text: String, style: CellStyle)] = []

    /// Wraps curses' `stdscr` after `newterm`. `noColor` forces attributes only (the `NO_COLOR` convention).
    /// With `output`, pictures are drawn in 24-bit colour when the terminal says it takes it.
    init(noColor: Bool, output: UnsafeMutablePointer<FILE>? = nil,
         environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let w = parley_stdscr() else { fatalError("NcursesScreen before newterm") }
        window = w
        var mode = ColorMode.none
        if !noColor && has_colors() {
            start_color()
            use_default_colors()
            let n = parley_colors()
            mode = n >= 256 ? .full : n >= 16 ? .sixteen : n >= 8 ? .eight : .none
        }
        colorMode = mode
        maxPairs = Int(min(parley_color_pairs(), 32767))
        self.output = output
        trueColor = output != nil && mode == .full
            && Self.terminalTakesTrueColor(environment: environment, terminfoFlag: { parley_terminfo_flag($0) > 0 })
    }

    /// `COLORTERM=truecolor` (or `24bit`), the convention terminals and tmux set; else terminfo's `RGB` or `Tc`.
    static func terminalTakesTrueColor(environment: [String: String], terminfoFlag: (String) -> Bool) -> Bool {
        let colorterm = environment["COLORTERM"]?.lowercased() ?? ""
        if colorterm == "truecolor" || colorterm == "24bit" { return true }
        return terminfoFlag("RGB") || terminfoFlag("Tc")
    }

    public var size: Size { Size(rows: Int(parley_getmaxy(window)), columns: Int(parley_getmaxx(window))) }

    public func put(row: Int, column: Int, text: String, style: CellStyle) {
        if trueColor, style.fg.isRGB || style.bg.isRGB { trueColorCells.append((row, column, text, style)) }
        let (attrs, pair) = resolve(style)
        parley_attr_set(window, attrs, pair)
        // Printable ASCII (the meters' bars and figures, most of a frame) is one column a byte: its bytes go to
        // curses as they are, without walking the text a Character at a time (grapheme breaking, a width each).
        if DisplayWidth.isPrintableASCII(text) {
            putASCII(row: row, column: column, text: text)
        } else {
            putCharacters(row: row, column: column, text: text)
        }
    }

    /// `put` for printable ASCII, with the attributes set: the same calls `putCharacters` makes for it, in one go.
    /// The wide characters are made on the stack: appending to the `wbuf` property checked exclusive access
    /// (`swift_beginAccess`) for every byte, a fifth of a meters frame's instructions.
    func putASCII(row: Int, column: Int, text: String) {
        let count = text.utf8.count
        guard count > 0 else { return }
        withUnsafeTemporaryAllocation(of: wchar_t.self, capacity: count) { wide in
            var i = 0
            for byte in text.utf8 {
                wide[i] = wchar_t(byte)
                i += 1
            }
            _ = parley_mvaddnwstr(window, Int32(row), Int32(column), wide.baseAddress, Int32(count))
        }
    }

    /// `put` for any text, with the attributes set: Character by Character, each non-ASCII one at the column
    /// parley computes for it.
    func putCharacters(row: Int, column: Int, text: String) {
        var col = column
        var chunkStart = column
        wbuf.removeAll(keepingCapacity: true)
        func flush() {
            guard !wbuf.isEmpty else { return }
            _ = wbuf.withUnsafeBufferPointer { parley_mvaddnwstr(window, Int32(row), Int32(chunkStart), $0.baseAddress, Int32($0.count)) }
            wbuf.removeAll(keepingCapacity: true)
        }
        for ch in text {
            let w = DisplayWidth.of(ch)
            if w == 0 { continue }
            if ch.isASCII {
                if wbuf.isEmpty { chunkStart = col }
                wbuf.append(wchar_t(ch.unicodeScalars.first?.value ?? 32))
            } else {
                // Each non-ASCII character goes to its own computed column, so a width disagreement with the
                // C library's wcwidth cannot shift the rest of the row.
                flush()
                chunkStart = col
                for s in ch.unicodeScalars.prefix(5) { wbuf.append(wchar_t(bitPattern: s.value)) }
                flush()
            }
            col += w
        }
        flush()
    }

    public func clear(_ rect: Rect, style: CellStyle) {
        let blank = String(repeating: " ", count: rect.columns)
        for r in rect.row..<(rect.row + rect.rows) { put(row: r, column: rect.column, text: blank, style: style) }
    }

    public func present() {
        wnoutrefresh(window)
        doupdate()
        writeTrueColorCells()
    }

    /// Paints this frame's `.rgb` cells again in 24-bit colour over what curses drew, leaving the cursor and
    /// the attributes as curses believes them to be (DECSC … DECRC).
    private func writeTrueColorCells() {
        guard let output, !trueColorCells.isEmpty else { return }
        var bytes = "\u{1b}7"
        for cell in trueColorCells {
            bytes += "\u{1b}[\(cell.row + 1);\(cell.column + 1)H\u{1b}[0" + Self.sgr(cell.style.fg, base: 38) + Self.sgr(cell.style.bg, base: 48) + "m" + cell.text
        }
        bytes += "\u{1b}[0m\u{1b}8"
        trueColorCells.removeAll(keepingCapacity: true)
        fputs(bytes, output)
        fflush(output)
    }

    /// The SGR parameters (after a `;`) for one colour; `base` 38 for the foreground, 48 for the background.
    static func sgr(_ c: Color, base: Int) -> String {
        switch c {
        case .default: return ";\(base + 1)"
        case .index(let i): return ";\(base);5;\(i)"
        case .rgb(let r, let g, let b): return ";\(base);2;\(r);\(g);\(b)"
        }
    }

    public func invalidate() { clearok(parley_curscr(), true) }

    private func resolve(_ s: CellStyle) -> (attr_t, Int16) {
        var a = parley_a_normal()
        var attrs = s.attributes
        var s = s
        s.fg = s.fg.paletteColor
        s.bg = s.bg.paletteColor
        if colorMode == .none, s.bg != .default, !attrs.contains(.reverse) { attrs.insert(.reverse) }
        // A dark grey panel (status bar, menu) that 8 colours would turn into plain black: reverse video instead.
        if colorMode == .eight, case .index(let b) = s.bg, !Palette.isNearBlack(b), Palette.nearest(b, within: 8) == 0,
           !attrs.contains(.reverse) {
            attrs.insert(.reverse)
            s.bg = .default
        }
        // Likewise dark grey text would vanish: dim white instead.
        if colorMode == .eight, case .index(let f) = s.fg, !Palette.isNearBlack(f), Palette.nearest(f, within: 8) == 0 {
            s.fg = .index(7)
            attrs.insert(.dim)
        }
        if attrs.contains(.bold) { a |= parley_a_bold() }
        if attrs.contains(.dim) { a |= parley_a_dim() }
        if attrs.contains(.underline) { a |= parley_a_underline() }
        if attrs.contains(.reverse) { a |= parley_a_reverse() }
        if attrs.contains(.italic) { a |= parley_a_italic() }
        guard colorMode != .none else { return (a, 0) }
        let fg = map(s.fg), bg = map(s.bg)
        if fg == -1 && bg == -1 { return (a, 0) }
        let key = (Int32(fg) + 1) << 16 | (Int32(bg) + 1)
        if let p = pairs[key] { return (a, p) }
        guard Int(nextPair) < maxPairs else { return (a, 0) }
        let p = nextPair
        nextPair += 1
        init_pair(p, fg, bg)
        pairs[key] = p
        return (a, p)
    }

    private func map(_ c: Color) -> Int16 {
        switch c {
        case .default: return -1
        case .rgb: return map(c.paletteColor)
        case .index(let i):
            switch colorMode {
            case .full: return Int16(i)
            case .sixteen: return Int16(Palette.nearest(i, within: 16))
            case .eight, .none: return Int16(Palette.nearest(i, within: 8))
            }
        }
    }
}

extension NcursesScreen {
    /// A curses screen writing to `output` instead of the terminal, for measuring what a frame costs in bytes.
    /// Uses `term`'s terminfo at the given size. Call `endOffscreen()` when done. Not for use with a `Terminal`.
    static func offscreen(term: String, rows: Int, columns: Int, output: UnsafeMutablePointer<FILE>, input: UnsafeMutablePointer<FILE>, noColor: Bool = false,
                          environment: [String: String] = [:]) -> NcursesScreen? {
        Terminal.ensureUTF8Locale()
        guard newterm(term, output, input) != nil else { return nil }
        raw(); noecho(); nonl(); typeahead(-1); curs_set(0)
        resizeterm(Int32(rows), Int32(columns))
        return NcursesScreen(noColor: noColor, output: output, environment: environment)
    }

    static func endOffscreen() { endwin() }
}

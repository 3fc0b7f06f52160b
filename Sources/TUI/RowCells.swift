/// A row as it is drawn, one byte and one role a column, for a line of printable ASCII (a column a byte): two of
/// them say which columns a redraw must write. The meters' rows change a few cells a frame, 30 times a second
/// while a reply plays; writing only those spares curses the rest of the row (a cell written costs about 200
/// instructions, and its refresh compares every cell written).
struct RowCells {
    private(set) var bytes: [UInt8]
    private(set) var roles: [Role]

    /// Columns `width` wide, padded with the line's fill; nil when a run holds anything but printable ASCII.
    init?(_ line: StyledLine, width: Int) {
        var bytes: [UInt8] = []
        var roles: [Role] = []
        bytes.reserveCapacity(width)
        roles.reserveCapacity(width)
        for run in line.runs where bytes.count < width {
            guard DisplayWidth.isPrintableASCII(run.text) else { return nil }
            for byte in run.text.utf8 {
                if bytes.count == width { break }
                bytes.append(byte)
                roles.append(run.role)
            }
        }
        let pad = max(0, width - bytes.count)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: pad))
        roles.append(contentsOf: repeatElement(line.fill, count: pad))
        self.bytes = bytes
        self.roles = roles
    }

    var count: Int { bytes.count }

    /// The stretches of columns that differ from `old`: two changes closer than `gap` unchanged columns make one
    /// stretch (a stretch costs a cursor move in the terminal, a column a cell write). Everything when the
    /// widths differ.
    func changes(from old: RowCells, gap: Int = 8) -> [Range<Int>] {
        guard old.count == count else { return count > 0 ? [0..<count] : [] }
        var spans: [Range<Int>] = []
        var start: Int?
        var lastChanged = -1
        for i in 0..<count where bytes[i] != old.bytes[i] || roles[i] != old.roles[i] {
            if let s = start, i - lastChanged > gap {
                spans.append(s..<(lastChanged + 1))
                start = i
            } else if start == nil {
                start = i
            }
            lastChanged = i
        }
        if let s = start { spans.append(s..<(lastChanged + 1)) }
        return spans
    }

    /// The columns in `span` as runs of one role: (first column, text, role).
    func runs(in span: Range<Int>) -> [(column: Int, text: String, role: Role)] {
        var out: [(column: Int, text: String, role: Role)] = []
        var i = span.lowerBound
        while i < span.upperBound {
            var j = i + 1
            while j < span.upperBound && roles[j] == roles[i] { j += 1 }
            out.append((i, String(decoding: bytes[i..<j], as: UTF8.self), roles[i]))
            i = j
        }
        return out
    }
}

/// Two VU meter rows (mic, speaker) on a dBFS scale with peak hold, clip mark and talking indicator.
public enum MetersView {
    /// Rows the meters take.
    public static let height = 2

    /// The mic and speaker rows, each exactly `width` columns.
    public static func render(_ m: MetersModel, width: Int) -> [StyledLine] {
        let infoW = min(28, max(10, width / 4))
        var micInfo = StyledLine()
        if m.micMuted { micInfo.append("muted", .stateOffline) } else if m.talking { micInfo.append("● talking", .talking) } else { micInfo.append("mic idle", .dim) }
        var spkInfo = StyledLine()
        if let e = m.echoProtection { spkInfo.append(e, .dim) }
        return [row("mic", m.mic, floor: m.floor, width: width, info: micInfo.truncated(to: infoW, ellipsis: true), infoW: infoW),
                row("spk", m.speaker, floor: m.floor, width: width, info: spkInfo.truncated(to: infoW, ellipsis: true), infoW: infoW)]
    }

    static func row(_ label: String, _ r: LevelReading, floor: Double, width: Int, info: StyledLine, infoW: Int) -> StyledLine {
        var line = StyledLine(" " + label + " ", .meterLabel)
        let barW = width - 5 - 2 - 7 - 5 - 1 - infoW
        guard barW >= 4 else { return line.padded(to: width) }
        func pos(_ db: Double) -> Int {
            guard db.isFinite else { return 0 }
            let f = (min(0, max(floor, db)) - floor) / -floor
            return Int((f * Double(barW)).rounded())
        }
        let filled = pos(r.level)
        let peakPos = r.peak.map { pos($0) } ?? 0
        line.append("[", .meterLabel)
        // A run per colour, not a cell at a time: the bar is redrawn up to 30 times a second. Cell i shows the
        // scale at `cellDB(i)`, which grows with i, so the filled cells are low, then mid from the first at -18
        // dB, then hot from the first at -6; past them the empty cells, one of them the peak mark.
        func cellDB(_ i: Int) -> Double { floor + Double(i) / Double(barW) * -floor }
        func firstFilled(atLeast t: Double) -> Int {
            let estimate = ((t - floor) / -floor * Double(barW)).rounded(.up)  // then corrected by the cells' own formula
            var i = estimate.isFinite ? Int(min(Double(filled), max(0, estimate))) : 0
            while i > 0 && cellDB(i - 1) >= t { i -= 1 }
            while i < filled && cellDB(i) < t { i += 1 }
            return i
        }
        let mid = firstFilled(atLeast: -18), hot = max(mid, firstFilled(atLeast: -6))
        func run(_ ascii: UInt8, _ count: Int, _ role: Role) {
            if count > 0 { line.append(.repeating(ascii: ascii, count: count), role) }
        }
        run(UInt8(ascii: "|"), mid, .meterLow)
        run(UInt8(ascii: "|"), hot - mid, .meterMid)
        run(UInt8(ascii: "|"), max(0, filled - hot), .meterHot)
        let peak = peakPos - 1
        if peakPos > 0 && peak >= max(0, filled) && peak < barW {
            run(UInt8(ascii: " "), peak - max(0, filled), .meterEmpty)
            run(UInt8(ascii: "|"), 1, .meterPeak)
            run(UInt8(ascii: " "), barW - peak - 1, .meterEmpty)
        } else {
            run(UInt8(ascii: " "), barW - max(0, filled), .meterEmpty)
        }
        line.append("]", .meterLabel)
        let db = r.level.isFinite ? "\(Int(r.level.rounded()))" : "-∞"
        line.append(String(repeating: " ", count: max(0, 4 - db.count)) + db + " dB", .meterLabel)
        line.append(" ")
        if r.clipped { line.append("CLIP", .meterClip) } else { line.append("    ") }
        line.append(" ")
        line.runs += info.runs
        return line.padded(to: width)
    }
}

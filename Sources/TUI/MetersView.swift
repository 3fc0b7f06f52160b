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
        // A run per colour, not a cell at a time: the bar is redrawn up to 30 times a second.
        var runStart = 0
        var runCell: (UInt8, Role)?
        for i in 0...barW {
            var cell: (UInt8, Role)?
            if i < barW {
                let db = floor + Double(i) / Double(barW) * -floor
                if i < filled {
                    cell = (UInt8(ascii: "|"), db >= -6 ? .meterHot : db >= -18 ? .meterMid : .meterLow)
                } else if peakPos > 0 && i == peakPos - 1 {
                    cell = (UInt8(ascii: "|"), .meterPeak)
                } else {
                    cell = (UInt8(ascii: " "), .meterEmpty)
                }
            }
            if let r = runCell, cell.map({ $0 != r }) ?? true {
                line.append(.repeating(ascii: r.0, count: i - runStart), r.1)
                runStart = i
            }
            runCell = cell
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

import TOMLKit

/// `[recording]`: whether a conversation's sound is recorded from the start (`--record` too), and as what.
struct RecordingSettings: Sendable, Equatable {
    var enabled = false
    var format = RecordingFormat.auto

    mutating func apply(_ t: TOMLTable, reader: ConfigReader) throws {
        let s = "recording"
        for key in t.keys where !["enabled", "format"].contains(key) {
            throw reader.error(key, "unknown setting (known: enabled, format)", section: s)
        }
        if let v = try reader.bool(t, "enabled", section: s) { enabled = v }
        if let v = try reader.string(t, "format", section: s) {
            guard let f = RecordingFormat(rawValue: v.lowercased()) else {
                throw reader.error("format", "must be \"auto\" (Ogg Opus with ffmpeg, else WAV), \"opus\" or \"wav\"", section: s)
            }
            format = f
        }
    }

    var printed: [String] {
        ["\n[recording]", "enabled = \(enabled)", "format = \"\(format.rawValue)\""]
    }
}

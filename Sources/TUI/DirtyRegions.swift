/// Screen regions that can be redrawn separately.
public struct DirtyRegions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let header = DirtyRegions(rawValue: 1)
    public static let transcript = DirtyRegions(rawValue: 2)
    public static let meters = DirtyRegions(rawValue: 4)
    public static let toolLog = DirtyRegions(rawValue: 8)
    public static let input = DirtyRegions(rawValue: 16)
    public static let status = DirtyRegions(rawValue: 32)
    public static let overlay = DirtyRegions(rawValue: 64)
    public static let all = DirtyRegions(rawValue: 127)
}

extension DirtyRegions {
    /// The regions whose content differs between two states, for a reducer-style main loop:
    /// `renderer.render(new, dirty: .changed(from: old, to: new))`. Cheap when little changed (unchanged parts
    /// share storage, so comparing them is quick).
    public static func changed(from old: UIState, to new: UIState) -> DirtyRegions {
        var d: DirtyRegions = []
        if old.header != new.header || old.banner != new.banner { d.insert(.header) }
        if old.transcript != new.transcript || old.search?.query != new.search?.query
            || old.search?.currentEntry != new.search?.currentEntry {
            d.insert(.transcript)
        }
        if old.meters != new.meters { d.insert(.meters) }
        if old.toolLog != new.toolLog || old.thumbnail != new.thumbnail { d.insert(.toolLog) }
        if old.input != new.input || old.search?.editor != new.search?.editor { d.insert(.input) }
        if old.overlay != new.overlay { d.insert(.overlay) }
        // The status line shows hints that depend on the mode, the overlay, the input line and the tool focus.
        if old.status != new.status || old.overlay != new.overlay || (old.input == nil) != (new.input == nil)
            || old.toolLog.focused != new.toolLog.focused || old.header.pushToTalk != new.header.pushToTalk
            || (old.search == nil) != (new.search == nil) || (old.search?.editor == nil) != (new.search?.editor == nil) {
            d.insert(.status)
        }
        return d
    }
}

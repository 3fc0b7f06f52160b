/// The conversation: turns wrapped to the width, the newest at the bottom, or scrolled back with a marker.
public enum TranscriptView {
    /// Renders exactly `size.rows` lines (rows past the conversation are empty).
    /// `search`'s matches are highlighted.
    public static func render(_ m: TranscriptModel, size: Size, layout: TranscriptLayout, search: SearchState? = nil) -> [StyledLine] {
        guard size.rows > 0 else { return [] }
        layout.search = search
        var (rows, moreBelow) = layout.visibleRows(m, size: size)
        while rows.count < size.rows { rows.append(StyledLine()) }
        if moreBelow {
            let newer = m.entries.count > (m.scroll?.entryCountAtScroll ?? m.entries.count)
            let text = newer ? " ↓ new messages below · End to follow " : " ↓ more below · End to follow "
            let pad = max(0, (size.columns - DisplayWidth.of(text)) / 2)
            var marker = StyledLine(String(repeating: " ", count: pad))
            marker.append(text, .newMessagesMarker)
            rows[rows.count - 1] = marker
        }
        return rows
    }
}

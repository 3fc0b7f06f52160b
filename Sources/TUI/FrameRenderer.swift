/// Composes a frame from the views and writes only the dirty regions to a `Screen`.
/// Main thread only. Rows identical to what is already on screen are skipped.
public final class FrameRenderer {
    /// Where frames go.
    public let screen: any Screen
    public private(set) var keyMap: KeyMap
    /// Transcript wrap cache; reused across frames.
    public let transcriptLayout = TranscriptLayout()
    public private(set) var theme: Theme
    /// The layout of the last frame.
    public private(set) var layout: FrameLayout?
    /// What each row of each region last drew (and, for rows drawn a cell at a time, its cells).
    private var drawn: [Int: DrawnRow] = [:]
    private var lastOverlay: Overlay?
    private var lastOverlayRect: Rect?
    private var forceAll = true
    /// Rows written this frame, to know whether the overlay was painted over.
    private var touched: [Rect] = []
    /// The picture on screen and where, so it is drawn again only when it or its box changed.
    private var drawnThumbnail: (thumbnail: Thumbnail, rect: Rect)?

    /// A renderer for a screen; the first `render` paints everything.
    public init(screen: any Screen, theme: Theme = .default, keyMap: KeyMap = .default) {
        self.screen = screen; self.theme = theme; self.keyMap = keyMap
    }

    /// Switches theme; the next frame repaints everything.
    public func setTheme(_ t: Theme) { theme = t; forceAll = true }
    /// Switches key map (hints and help); the next frame repaints everything.
    public func setKeyMap(_ k: KeyMap) { keyMap = k; forceAll = true }
    /// Forget the screen's contents (after a resize or anything that scribbled on the terminal).
    public func invalidate() { forceAll = true; screen.invalidate() }

    /// Draws the regions in `dirty` (everything after a size, layout, theme or overlay change) and presents.
    public func render(_ state: UIState, dirty: DirtyRegions = .all) {
        let newLayout = FrameLayout(size: screen.size, state: state)
        var dirty = dirty
        if forceAll || newLayout != layout { dirty = .all }
        if lastOverlay != nil && state.overlay == nil { dirty = .all }
        if state.overlay != lastOverlay { dirty.insert(.overlay) }
        if dirty == .all { drawn.removeAll(keepingCapacity: true); drawnThumbnail = nil }
        forceAll = false
        layout = newLayout
        defer { lastOverlay = state.overlay }
        if dirty.isEmpty { return }
        touched.removeAll(keepingCapacity: true)

        if newLayout.tooSmall {
            let lines = TooSmallView.render(size: newLayout.size)
            put(lines, in: Rect(row: 0, column: 0, rows: newLayout.size.rows, columns: newLayout.size.columns), key: 0)
            screen.present()
            return
        }
        let l = newLayout
        if dirty.contains(.header) {
            put(HeaderView.render(state.header, width: l.header.columns), in: l.header, key: 1)
            if let b = l.banner, let text = state.banner {
                put([StyledLine(" " + text.clipped(to: b.columns - 2), .banner, fill: .banner)], in: b, key: 2)
            }
        }
        if dirty.contains(.transcript) {
            put(TranscriptView.render(state.transcript, size: l.transcript.size, layout: transcriptLayout, search: state.search), in: l.transcript, key: 3)
        }
        if dirty.contains(.toolLog), let r = l.toolLog {
            if let rule = l.toolLogRule {
                put(Array(repeating: StyledLine("│", .border), count: rule.rows), in: rule, key: 4)
            }
            put(ToolLogView.render(state.toolLog, size: r.size), in: r, key: 5)
        }
        if dirty.contains(.toolLog), let r = l.thumbnail, let t = state.thumbnail,
           drawnThumbnail?.thumbnail != t || drawnThumbnail?.rect != r {
            screen.clear(r, style: theme.style(.normal))
            ThumbnailView.draw(t, in: r, on: screen)
            drawnThumbnail = (t, r)
            touched.append(r)
        }
        if dirty.contains(.meters) {
            put(MetersView.render(state.meters, width: l.meters.columns), in: l.meters, key: 6, cellwise: true)
        }
        if dirty.contains(.input), let r = l.input {
            if let e = state.input {
                put([InputLineView.render(e, width: r.columns)], in: r, key: 7)
            } else if let e = state.search?.editor {
                put([InputLineView.render(e, width: r.columns, prompt: "/")], in: r, key: 7)
            }
        }
        if dirty.contains(.status) {
            put([StatusLineView.render(status: state.status, hints: StatusLineView.hints(state, keyMap: keyMap), width: l.status.columns)], in: l.status, key: 8)
        }
        if let o = state.overlay {
            let (rect, lines) = OverlayView.render(o, screen: l.size, keyMap: keyMap)
            if let old = lastOverlayRect, old != rect, lastOverlay != nil, dirty != .all {
                // The box moved or shrank: repaint what was under it, then the box.
                lastOverlayRect = rect
                forceAll = true
                render(state, dirty: .all)
                return
            }
            lastOverlayRect = rect
            // Draw the box last when it changed or a region was redrawn under it (meters moving beside a menu
            // cost nothing extra).
            if !dirty.contains(.overlay) && !touched.contains(where: { $0.intersects(rect) }) {
                screen.present()
                return
            }
            for (i, line) in lines.enumerated() {
                screen.draw(line, row: rect.row + i, column: rect.column, width: rect.columns, theme: theme)
                drawn[(9 << 20) | (rect.row + i)] = nil
            }
            // Rows under the box no longer show what the cache says.
            for r in rect.row..<(rect.row + rect.rows) { for k in 0..<9 { drawn[(k << 20) | r] = nil } }
        } else {
            lastOverlayRect = nil
        }
        screen.present()
    }

    /// Scrolls the transcript of `state` for the current layout (PgUp/PgDn/Home/End/arrows).
    public func scrollTranscript(_ cmd: ScrollCommand, in state: inout UIState) {
        let l = layout ?? FrameLayout(size: screen.size, state: state)
        transcriptLayout.search = state.search
        transcriptLayout.scroll(cmd, &state.transcript, viewport: l.transcript.size)
    }

    private struct DrawnRow {
        var line: StyledLine
        var cells: RowCells?
    }

    /// Draws the rows of `lines` that changed. `cellwise`: for rows that change a few cells at a time up to 30
    /// times a second (the meters), only the columns that differ from what the row last drew are written,
    /// when both are printable ASCII.
    private func put(_ lines: [StyledLine], in rect: Rect, key: Int, cellwise: Bool = false) {
        for i in 0..<rect.rows {
            let line = i < lines.count ? lines[i] : StyledLine()
            let k = (key << 20) | (rect.row + i)
            let before = drawn[k]
            if before?.line == line { continue }
            let cells = cellwise ? RowCells(line, width: rect.columns) : nil
            drawn[k] = DrawnRow(line: line, cells: cells)
            touched.append(Rect(row: rect.row + i, column: rect.column, rows: 1, columns: rect.columns))
            if let cells, let old = before?.cells {
                for span in cells.changes(from: old) {
                    for run in cells.runs(in: span) {
                        screen.put(row: rect.row + i, column: rect.column + run.column, text: run.text, style: theme.style(run.role))
                    }
                }
            } else {
                screen.draw(line, row: rect.row + i, column: rect.column, width: rect.columns, theme: theme)
            }
        }
    }
}

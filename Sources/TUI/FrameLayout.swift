/// Where each region goes for a screen size: header on top, transcript in the middle, the tool-call log on the
/// right (≥ 100 columns) or below the transcript, meters, the input line and the status line at the bottom.
public struct FrameLayout: Sendable, Equatable {
    /// Below this the screen shows only a "terminal too small" message.
    public static let minimumSize = Size(rows: 12, columns: 40)
    /// From this width on the tool log is a column on the right.
    public static let sidePaneMinColumns = 100

    public var size: Size
    public var tooSmall: Bool
    public var header = Rect(row: 0, column: 0, rows: 0, columns: 0)
    public var banner: Rect?
    public var transcript = Rect(row: 0, column: 0, rows: 0, columns: 0)
    public var toolLog: Rect?
    /// The one-column rule left of a side tool pane.
    public var toolLogRule: Rect?
    /// The picture last sent, at the foot of the side pane (none without a side pane or room for it).
    public var thumbnail: Rect?
    public var meters = Rect(row: 0, column: 0, rows: 0, columns: 0)
    public var input: Rect?
    public var status = Rect(row: 0, column: 0, rows: 0, columns: 0)

    /// Rows for the thumbnail box in a side pane of `bodyRows`: up to 10 (9 of picture, 1 of caption), never
    /// leaving the tool log fewer than 6; nil when that leaves too small a box.
    static func thumbnailRows(bodyRows: Int) -> Int? {
        let rows = min(10, bodyRows - 6)
        return rows >= ThumbnailView.minimumRows ? rows : nil
    }

    public init(size: Size, state: UIState) {
        self.size = size
        tooSmall = size.rows < Self.minimumSize.rows || size.columns < Self.minimumSize.columns
        guard !tooSmall else { return }
        let w = size.columns
        header = Rect(row: 0, column: 0, rows: HeaderView.height, columns: w)
        var top = HeaderView.height
        if state.banner != nil { banner = Rect(row: top, column: 0, rows: 1, columns: w); top += 1 }
        var bottom = size.rows - 1
        status = Rect(row: bottom, column: 0, rows: 1, columns: w)
        if state.input != nil || state.search?.editor != nil { bottom -= 1; input = Rect(row: bottom, column: 0, rows: 1, columns: w) }
        bottom -= MetersView.height
        meters = Rect(row: bottom, column: 0, rows: MetersView.height, columns: w)
        let bodyRows = bottom - top
        let log = state.toolLog
        if !log.collapsed && w >= Self.sidePaneMinColumns {
            let paneW = min(48, max(32, w / 3))
            toolLog = Rect(row: top, column: w - paneW, rows: bodyRows, columns: paneW)
            toolLogRule = Rect(row: top, column: w - paneW - 1, rows: bodyRows, columns: 1)
            transcript = Rect(row: top, column: 0, rows: bodyRows, columns: w - paneW - 1)
            if state.thumbnail != nil, let box = Self.thumbnailRows(bodyRows: bodyRows) {
                thumbnail = Rect(row: top + bodyRows - box, column: w - paneW, rows: box, columns: paneW)
                toolLog = Rect(row: top, column: w - paneW, rows: bodyRows - box, columns: paneW)
            }
        } else if !log.collapsed && (!log.calls.isEmpty || log.focused) {
            let wanted = log.focused && log.expanded ? 10 : 1 + min(4, max(1, log.calls.count))
            let paneRows = min(wanted, max(2, bodyRows - 4))
            toolLog = Rect(row: bottom - paneRows, column: 0, rows: paneRows, columns: w)
            transcript = Rect(row: top, column: 0, rows: bodyRows - paneRows, columns: w)
        } else {
            transcript = Rect(row: top, column: 0, rows: bodyRows, columns: w)
        }
    }
}

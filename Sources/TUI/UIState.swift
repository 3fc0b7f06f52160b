/// Everything the screen shows: the App fills it in and hands it to `FrameRenderer.render`.
public struct UIState: Sendable, Equatable {
    public var header: HeaderModel
    public var transcript: TranscriptModel
    public var meters: MetersModel
    public var toolLog: ToolLogModel
    /// The input line, while the user types a message (nil: not typing).
    public var input: LineEditor?
    public var overlay: Overlay?
    /// Searching the transcript (`/`): the query line while it is typed, then the matches `n`/`N` step through.
    public var search: SearchState?
    /// A persistent banner under the header (e.g. "no audio: text only — …").
    public var banner: String?
    /// A transient message on the status line.
    public var status: String?
    /// The last image or camera/screen frame sent, drawn in the side pane when there is room.
    public var thumbnail: Thumbnail?
    /// The terminal's size, for keys whose meaning depends on what is on screen (a popup's scrolling).
    public var screen = Size(rows: 24, columns: 80)

    public init(header: HeaderModel = .init(), transcript: TranscriptModel = .init(), meters: MetersModel = .init(),
                toolLog: ToolLogModel = .init(), input: LineEditor? = nil, overlay: Overlay? = nil,
                banner: String? = nil, status: String? = nil) {
        self.header = header; self.transcript = transcript; self.meters = meters; self.toolLog = toolLog
        self.input = input; self.overlay = overlay; self.banner = banner; self.status = status
    }
}

/// Who a transcript line belongs to.
public enum Speaker: Sendable, Equatable {
    case user, model, system, error
    /// The model's thoughts: dimmed, folded to one line unless thoughts are shown.
    case thought
}

/// One turn or system line.
public struct TranscriptEntry: Sendable, Equatable {
    public let id: Int
    public var speaker: Speaker
    /// Finished text.
    public var text: String
    /// Text still streaming (styled apart); the App moves it into `text` when the turn completes.
    public var interim: String
    /// The model's turn was cut by the user (barge-in); shows a mark.
    public var interrupted: Bool
    /// A fast partial transcript of the user, shown after the text until the final transcript replaces it.
    public var partial: String
    /// A thought shown as its first line only.
    public var folded: Bool

    public init(id: Int, speaker: Speaker, text: String, interim: String = "", interrupted: Bool = false,
                partial: String = "", folded: Bool = false) {
        self.id = id; self.speaker = speaker; self.text = text; self.interim = interim; self.interrupted = interrupted
        self.partial = partial; self.folded = folded
    }
}

/// Where the transcript view is scrolled to: the entry and wrapped row shown on its bottom line.
public struct TranscriptScroll: Sendable, Equatable {
    public var entryIndex: Int
    public var row: Int
    /// Entry count when the user scrolled away, to tell "new messages below" from "more below".
    public var entryCountAtScroll: Int
}

/// The conversation as the transcript view shows it. Append-only; scrolled with `FrameRenderer.scrollTranscript`.
public struct TranscriptModel: Sendable, Equatable {
    public private(set) var entries: [TranscriptEntry] = []
    /// nil: follow the newest line.
    public var scroll: TranscriptScroll?
    public var userLabel: String
    public var modelLabel: String
    /// Thoughts are shown in full (otherwise folded to one line each).
    public private(set) var showThoughts = false
    /// The user's and the model's turns still streaming, if any.
    public private(set) var openUserTurn: Int?
    public private(set) var openModelTurn: Int?

    public init(userLabel: String = "you", modelLabel: String = "gemini") {
        self.userLabel = userLabel; self.modelLabel = modelLabel
    }

    /// Adds an entry and returns its id.
    @discardableResult
    public mutating func append(_ speaker: Speaker, _ text: String, interim: String = "", interrupted: Bool = false) -> Int {
        let id = entries.count
        entries.append(TranscriptEntry(id: id, speaker: speaker, text: text, interim: interim, interrupted: interrupted))
        return id
    }

    /// Changes an entry in place (e.g. streaming text).
    public mutating func update(_ id: Int, _ change: (inout TranscriptEntry) -> Void) {
        guard entries.indices.contains(id), entries[id].id == id else { return }
        change(&entries[id])
    }

    /// Appends streamed transcription to the speaker's open turn (styled as interim), opening one if needed.
    /// Only `.user` and `.model` have turns; other speakers get a new entry.
    @discardableResult
    public mutating func stream(_ speaker: Speaker, _ text: String) -> Int {
        switch speaker {
        case .user:
            if let id = openUserTurn { update(id) { $0.interim += text }; return id }
            let id = append(.user, "", interim: text); openUserTurn = id; return id
        case .model:
            if let id = openModelTurn { update(id) { $0.interim += text }; return id }
            let id = append(.model, "", interim: text); openModelTurn = id; return id
        case .system, .error, .thought:
            return append(speaker, text)
        }
    }

    /// Shows or folds every thought.
    public mutating func setShowThoughts(_ show: Bool) {
        showThoughts = show
        for i in entries.indices where entries[i].speaker == .thought { entries[i].folded = !show }
    }

    /// Ends the speaker's open turn: its interim text becomes finished text.
    public mutating func finishTurn(_ speaker: Speaker) {
        let id = speaker == .user ? openUserTurn : speaker == .model ? openModelTurn : nil
        if let id { update(id) { $0.text += $0.interim; $0.interim = "" } }
        if speaker == .user { openUserTurn = nil } else if speaker == .model { openModelTurn = nil }
    }

    /// The model was interrupted (barge-in): its open turn, or else its last turn, gets the mark and is finished.
    public mutating func interruptModelTurn() {
        guard let id = openModelTurn ?? entries.last(where: { $0.speaker == .model })?.id else { return }
        update(id) { $0.text += $0.interim; $0.interim = ""; $0.interrupted = true }
        openModelTurn = nil
    }

    /// The last entry of a speaker that is still streaming (has interim text), if any.
    public func streamingEntry(of speaker: Speaker) -> Int? {
        entries.last(where: { $0.speaker == speaker && !$0.interim.isEmpty })?.id
    }

    /// True when scrolled away from the bottom.
    public var isScrolledBack: Bool { scroll != nil }
}

/// Scroll commands for the transcript.
public enum ScrollCommand: Sendable, Equatable {
    case pageUp, pageDown, top, bottom
    case lines(Int)
    /// Show the entry with this id (a search match).
    case entry(Int)
}

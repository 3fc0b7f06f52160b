import Foundation
import TUI

/// Pictures: `@path` in a typed line, the Ctrl-O prompt, camera or screen sharing (`c`), and what the vision
/// side reports back.
extension Reducer {
    static func handleVision(_ s: inout AppState, _ e: VisionEvent, now: Double) -> [Effect] {
        switch e {
        case .loaded(let images, let question?):
            s.vision.loading = false
            guard !images.isEmpty else { return sendText(&s, question, now: now) }
            s.status = .sendingImages(names: names(images))
            return [.vision(.send(images, question: question))]
        case .loaded(let images, nil):
            s.vision.loading = false
            s.vision.pending += images
            s.status = .imagesAttached(names: names(s.vision.pending))
            return []
        case .failed(let message):
            s.vision.loading = false
            s.status = nil
            return system(&s, message, error: true)
        case .sent(let images, let thumbnail, let question, let failure):
            var fx: [Effect] = []
            for image in images {
                let line = "[image] \(image.summary)"
                s.ui.transcript.append(.user, line)
                fx.append(.record(.line(speaker: .user, text: line, interrupted: false)))
            }
            if let thumbnail { s.ui.thumbnail = thumbnail }
            if s.status?.isSendingImages == true { s.status = nil }
            if let failure {
                fx += system(&s, question.map { _ in failure + " — the question was not sent either" } ?? failure, error: true)
                return fx
            }
            if let question, !question.isEmpty { fx += sendText(&s, question, now: now) }
            return fx
        case .completed(let word, let completion):
            guard let completion else { return [] }
            if var editor = s.ui.input, editor.wordBeforeCursor == word {
                editor.replaceWordBeforeCursor(with: completion)
                s.ui.input = editor
            } else if case .pathPrompt(var editor) = s.ui.overlay, "@" + editor.text == word {
                editor.replaceWordBeforeCursor(with: String(completion.dropFirst()))
                s.ui.overlay = .pathPrompt(editor)
            }
            return []
        case .status(let status, let thumbnail):
            let newProblem = status.problem != nil && status.problem != s.vision.status?.problem
            s.vision.status = status
            if let thumbnail { s.ui.thumbnail = thumbnail }
            guard newProblem, let problem = status.problem else { return [] }
            // Sharing stopped on its own (no device, ffmpeg gone): the conversation goes on without it.
            s.vision.sharing = false
            s.vision.toldSharing = false
            return system(&s, "\(status.source): \(problem) — going on without it", error: true)
        }
    }

    /// A typed line: `@path` words are loaded first (the line goes out once its images have), and images
    /// waiting from the prompt go before the text. Nil: a plain message.
    static func submitTyped(_ s: inout AppState, _ text: String, now: Double) -> [Effect]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let mentions = mentionsAttachment(trimmed)
        guard mentions || (!s.vision.pending.isEmpty && !trimmed.isEmpty) else { return nil }
        if s.offline {
            s.ui.input = LineEditor(text: trimmed, history: s.ui.input?.history ?? [])
            s.status = .imagesNotQueuedOffline
            return []
        }
        if mentions {
            s.vision.loading = true
            s.status = .attaching(file: nil)
            return [.vision(.load(.typed(trimmed)))]
        }
        let images = s.vision.pending
        s.vision.pending = []
        s.status = .sendingImages(names: names(images))
        return [.vision(.send(images, question: trimmed))]
    }

    /// Keys of the Ctrl-O prompt: Tab completes, Enter attaches, Esc cancels, the rest edit the path.
    static func pathPromptKey(_ s: inout AppState, _ editor: LineEditor, _ k: KeyEvent) -> [Effect] {
        var editor = editor
        if k.key == .tab { return [.vision(.complete("@" + editor.text))] }
        switch editor.handle(k) {
        case .none, .edited:
            s.ui.overlay = .pathPrompt(editor)
            return []
        case .leave:
            s.ui.overlay = nil
            return []
        case .submit(let path):
            s.ui.overlay = nil
            let trimmed = path.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return [] }
            s.vision.loading = true
            s.status = .attaching(file: (trimmed as NSString).lastPathComponent)
            return [.vision(.load(.prompt(trimmed)))]
        }
    }

    /// `c`: camera or screen sharing on or off.
    static func toggleSharing(_ s: inout AppState) -> [Effect] {
        guard let source = s.vision.source else {
            s.status = .nothingToShare
            return []
        }
        guard s.vision.available else {
            s.status = .sourceUnavailable(source)
            return []
        }
        s.vision.sharing.toggle()
        if s.vision.sharing { s.vision.status?.problem = nil }
        s.status = .sharing(source: source, on: s.vision.sharing)
        return []
    }

    /// Whether the user is talking, for the camera: push-to-talk held, or (open mic) speech heard in a turn the
    /// model has not started answering.
    static func userIsTalking(_ s: AppState) -> Bool {
        switch s.talk.mic {
        case .pushing: return true
        case .listening: return s.userEntry != nil && s.talk.reply == .idle
        default: return false
        }
    }

    /// Tells the vision side what changed in this pass: sharing (once the first connection is live) and talking;
    /// images waiting from the prompt go out as a spoken turn starts.
    static func visionCommands(_ s: inout AppState) -> [Effect] {
        var fx: [Effect] = []
        let share = s.vision.sharing && s.sessionStartedAt != nil
        if s.vision.source != nil, share != s.vision.toldSharing {
            s.vision.toldSharing = share
            fx.append(.vision(.share(share)))
        }
        let talking = userIsTalking(s)
        if talking != s.vision.toldTalking {
            s.vision.toldTalking = talking
            if s.vision.source != nil { fx.append(.vision(.talking(talking))) }
            if talking, !s.vision.pending.isEmpty {
                fx.append(.vision(.send(s.vision.pending, question: nil)))
                s.vision.pending = []
            }
        }
        return fx
    }

    /// The header's vision item: the camera or screen, and images waiting for the next turn.
    static func refreshVisionHeader(_ s: inout AppState) {
        var parts: [String] = []
        if let source = s.vision.source {
            var status = s.vision.status ?? VisionStatus(source: source, sharing: false, framesSent: 0, bytesPerFrame: 0)
            status.sharing = s.vision.sharing
            status.capturing = s.vision.toldSharing && (s.vision.framesAlways || s.vision.toldTalking)
            parts.append(status.headerText)
        }
        if !s.vision.pending.isEmpty { parts.append("attached: \(names(s.vision.pending)) (next turn)") }
        s.ui.header.vision = parts.isEmpty ? nil : parts.joined(separator: " · ")
        s.ui.header.visionLive = s.vision.toldSharing && (s.vision.framesAlways || s.vision.toldTalking) && s.vision.status?.problem == nil
    }

    static func names(_ images: [AttachedImage]) -> String { images.map(\.fileName).joined(separator: ", ") }

    /// Whether a typed line may attach something (a word of two or more characters starting with `@`): the
    /// reducer's cheap test before the file system is asked.
    static func mentionsAttachment(_ line: String) -> Bool {
        line.split(separator: " ").contains { $0.hasPrefix("@") && $0.count > 1 }
    }
}

import TUI

extension Reducer {
    /// `R`: start or pause the recording; the recorder answers with a `RecordingEvent`.
    static func toggleRecording(_ s: inout AppState) -> [Effect] {
        [.recording(start: !s.recording)]
    }

    /// What the recorder said: the REC mark, the status line, and a failure once in the transcript (the
    /// transcript itself goes on being saved).
    static func handleRecording(_ s: inout AppState, _ e: RecordingEvent) -> [Effect] {
        var fx: [Effect] = []
        switch e {
        case .started(let path):
            s.recording = true
            s.status = .recording(path: path)
        case .stopped:
            s.recording = false
            s.status = .recordingPaused
        case .failed(let f):
            s.recording = false
            s.status = .recordingFailed(f.message)
            fx = system(&s, f.description, error: true)
        case .fellBehind(let seconds):
            fx = system(&s, "the recording fell behind (the disk is slow): \(Int(seconds.rounded(.up))) s of sound or more is missing from it", error: true)
        }
        s.ui.header.recording = s.recording
        return fx
    }
}

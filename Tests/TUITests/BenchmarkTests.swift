import Foundation
import ParleyTime
import XCTest
@testable import TUI

/// Numbers for the report, not timed assertions: run with `PARLEY_BENCH=1 swift test --filter BenchmarkTests`.
final class BenchmarkTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["PARLEY_BENCH"] == "1", "set PARLEY_BENCH=1 to run benchmarks")
    }

    func stats(_ xs: [Double]) -> String {
        let s = xs.sorted()
        let mean = s.reduce(0, +) / Double(s.count)
        let p99 = s[min(s.count - 1, Int(Double(s.count) * 0.99))]
        return String(format: "mean %.3f ms, p99 %.3f ms, max %.3f ms (n=%d)", mean * 1000, p99 * 1000, s.last! * 1000, s.count)
    }

    func testFullFrameOf1000TurnTranscriptOnGrid() {
        var s = Fixtures.state()
        s.transcript = Fixtures.longTranscript(turns: 1000)
        let streaming = s.transcript.append(.model, "streaming", interim: "")
        for (rows, cols) in [(24, 80), (40, 120)] {
            let g = GridScreen(rows: rows, columns: cols)
            let r = FrameRenderer(screen: g)
            var t0 = TimeSource.monotonicSeconds()
            r.render(s)
            let cold = TimeSource.monotonicSeconds() - t0
            var full: [Double] = []
            var stream: [Double] = []
            for i in 0..<300 {
                // A full repaint (everything dirty) while the last model turn streams a word.
                s.transcript.update(streaming) { $0.interim += " word\(i)" }
                t0 = TimeSource.monotonicSeconds()
                r.invalidate()
                r.render(s, dirty: .all)
                full.append(TimeSource.monotonicSeconds() - t0)
                s.transcript.update(streaming) { $0.interim += " more" }
                t0 = TimeSource.monotonicSeconds()
                r.render(s, dirty: .transcript)
                stream.append(TimeSource.monotonicSeconds() - t0)
            }
            t0 = TimeSource.monotonicSeconds()
            r.scrollTranscript(.top, in: &s)
            r.render(s, dirty: .transcript)
            let top = TimeSource.monotonicSeconds() - t0
            r.scrollTranscript(.bottom, in: &s)
            print(String(format: "BENCH grid %dx%d, 2001 entries: first frame %.2f ms; full frame %@; transcript-only frame %@; Home (wraps all) %.2f ms",
                         cols, rows, cold * 1000, stats(full), stats(stream), top * 1000))
        }
    }

    /// The frame a playing reply costs 30 times a second: only the meters move (100×30, xterm-256color, curses
    /// writing to a file). For instruction counts, `valgrind --tool=callgrind
    /// --toggle-collect='*testMetersFramesWhileAReplyPlays*'` on the release test binary with
    /// `PARLEY_BENCH_FRAMES` at 1000 and at 2000: the difference over 1,000 is a frame's (the first, full frame
    /// and the fixtures cancel out).
    func testMetersFramesWhileAReplyPlays() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(getpid()).out").path
        guard let out = fopen(path, "w+"), let input = fopen("/dev/null", "r") else { throw XCTSkip("cannot open temp files") }
        defer { fclose(out); fclose(input); unlink(path) }
        guard let screen = NcursesScreen.offscreen(term: "xterm-256color", rows: 30, columns: 100, output: out, input: input) else {
            throw XCTSkip("no terminfo for xterm-256color")
        }
        defer { NcursesScreen.endOffscreen() }
        var s = Fixtures.state()
        s.transcript = Fixtures.longTranscript(turns: 20)
        s.meters.talking = false  // the reply's turn: the open mic hears the room
        let r = FrameRenderer(screen: screen)
        r.render(s)
        var peak = PeakHold()
        let t0 = TimeSource.monotonicSeconds()
        let frames = Int(ProcessInfo.processInfo.environment["PARLEY_BENCH_FRAMES"] ?? "") ?? 1_000
        for i in 0..<frames {
            let t = Double(i) / 30
            // The speaker's bar moves every frame; the open mic hears the room, its figure now and then.
            let level = (-22 + 12 * sin(t * 7)).rounded()
            s.meters.speaker = LevelReading(level: level, peak: peak.update(level: level, now: t).rounded(), clipped: false)
            s.meters.mic = LevelReading(level: i % 9 == 0 ? -61 : -62, peak: nil, clipped: false)
            r.render(s, dirty: .meters)
        }
        let seconds = TimeSource.monotonicSeconds() - t0
        fflush(out)
        print(String(format: "BENCH meters frames while a reply plays, 100x30: %.1f µs a frame, %.1f B a frame (%d frames)",
                     seconds / Double(frames) * 1e6, Double(ftell(out)) / Double(frames), frames))
    }

    func testBytesPerMetersOnlyFrameThroughNcurses() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(getpid()).out").path
        guard let out = fopen(path, "w+"), let input = fopen("/dev/null", "r") else { throw XCTSkip("cannot open temp files") }
        defer { fclose(out); fclose(input); unlink(path) }
        for (rows, cols) in [(24, 80), (40, 120)] {
            guard let screen = NcursesScreen.offscreen(term: "xterm-256color", rows: rows, columns: cols, output: out, input: input) else {
                throw XCTSkip("no terminfo for xterm-256color")
            }
            func bytes() -> Int { fflush(out); return Int(ftell(out)) }
            var s = Fixtures.state()
            s.transcript = Fixtures.longTranscript(turns: 1000)
            let r = FrameRenderer(screen: screen)
            var b0 = bytes()
            r.render(s)
            let first = bytes() - b0
            var meterFrames: [Int] = []
            var peak = PeakHold()
            for i in 0..<300 {
                let t = Double(i) / 30
                let level = -30 + 20 * sin(t * 5)
                s.meters.mic = LevelReading(level: level, peak: peak.update(level: level, now: t), clipped: false)
                s.meters.speaker.level = -25 + 15 * cos(t * 3)
                b0 = bytes()
                r.render(s, dirty: .meters)
                meterFrames.append(bytes() - b0)
            }
            var streamFrames: [Int] = []
            let id = s.transcript.append(.model, "", interim: "")
            for i in 0..<100 {
                s.transcript.update(id) { $0.interim += "w\(i) " }
                b0 = bytes()
                r.render(s, dirty: .transcript)
                streamFrames.append(bytes() - b0)
            }
            b0 = bytes()
            r.invalidate()
            r.render(s, dirty: .all)
            let repaint = bytes() - b0
            NcursesScreen.endOffscreen()
            let mean = Double(meterFrames.reduce(0, +)) / Double(meterFrames.count)
            let streamMean = Double(streamFrames.reduce(0, +)) / Double(streamFrames.count)
            print(String(format: "BENCH ncurses xterm-256color %dx%d: first frame %d B; meters-only frame mean %.1f B, max %d B (n=%d); streaming-word frame mean %.1f B; full repaint %d B",
                         cols, rows, first, mean, meterFrames.max() ?? 0, meterFrames.count, streamMean, repaint))
        }
    }
}

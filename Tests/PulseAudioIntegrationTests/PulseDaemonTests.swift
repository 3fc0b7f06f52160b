#if canImport(Glibc)
import Glibc
#endif
import ParleyTesting
import ParleyTime
import PulseAudioTesting
import XCTest
@testable import PulseAudio

/// The test daemon: `scripts/pulse-daemon.sh start DIR` prints its server string.
func testPulseServer() throws -> String {
    guard let s = ProcessInfo.processInfo.environment["PARLEY_TEST_PULSE_SERVER"], !s.isEmpty else {
        throw XCTSkip("set PARLEY_TEST_PULSE_SERVER (scripts/pulse-daemon.sh start)")
    }
    return s
}

/// Whether the test server is PipeWire's PulseAudio server (pipewire-pulse calls itself
/// "PulseAudio (on PipeWire x.y.z)"); scripts/test.sh runs these tests against both.
func testServerIsPipeWire(_ server: String) throws -> Bool {
    try AudioDevices.query(server: server).server.contains("PipeWire")
}

/// How often this process's audio threads ("parley-audio") have slept so far: their voluntary context switches
/// (/proc/self/task/*/status), each a wake-up later. The capture's `loopWakeups` counts polls that returned
/// something, and PipeWire's server sends a piece's header and data apart: two such polls, one sleep.
func audioThreadSleeps() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    var sleeps = 0
    for task in tasks {
        guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
              name.trimmingCharacters(in: .whitespacesAndNewlines) == "parley-audio",
              let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { continue }
        for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
            sleeps += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
        }
    }
    return sleeps
}

let nullSink = "parley_null"
let nullMonitor = "parley_null.monitor"

/// A capture of a null sink's monitor and a playback stream to that sink. Each loopback loads its own null
/// sink next to `parley_null`, so tests running in parallel (`swift test --parallel`) never hear each other.
final class Loopback {
    let capture: PulseCapture
    let playback: PulsePlayback
    let recorder = ChunkRecorder()
    let events = ChunkEvents()
    let sink: String
    private let context: PulseContext
    private let module: UInt32
    static let chunkSamples = 320
    private static let counter = NSLock()
    nonisolated(unsafe) private static var next = 0

    init(server: String, targetLatencyMilliseconds: Int = 20, recordTimings: Bool = false, padding: Int = 0,
         onStartHeard: (@Sendable (UInt64) -> Void)? = nil, canceller: WebRTCCanceller? = nil) throws {
        Loopback.counter.lock()
        Loopback.next += 1
        let n = Loopback.next
        Loopback.counter.unlock()
        sink = "parley_test_\(getpid())_\(n)"
        context = try PulseContext(server: server, timeout: 5)
        module = try context.loadModule("module-null-sink", arguments: "sink_name=\(sink)", timeout: 5)
        let events = self.events
        capture = PulseCapture(options: .init(server: server, device: sink + ".monitor"), onEvent: { events.append($0) })
        var po = PulsePlayback.Options(server: server, device: sink, targetLatencyMilliseconds: targetLatencyMilliseconds)
        po.recordTimings = recordTimings
        po.restartPaddingMilliseconds = padding
        po.onStartHeard = onStartHeard
        po.canceller = canceller
        playback = PulsePlayback(options: po, onEvent: { events.append($0) })
        capture.setGate(open: true)
        let rec = recorder
        try capture.open { rec.append($0) }
        try playback.open()
        // The first write after idle can stall 1–2 s: pre-roll silence and wait until it has played.
        playback.write([Int16](repeating: 0, count: 24_000 * 3 / 10))
        playback.drain()
        XCTAssertTrue(playback.waitUntilIdle(timeout: 15), "pre-roll played")
    }

    func close() {
        playback.close()
        capture.close()
        _ = try? context.unloadModule(module, timeout: 5)
    }

    /// Captured samples (gate always open, so chunks are contiguous) and the time of each sample index.
    func timeline() -> Timeline { Timeline(chunks: recorder.all) }

    /// The timeline of what was captured from `seconds` before `time` on: its sample clock is anchored on
    /// those chunks alone, so an overrun earlier in the capture (samples the server dropped) cannot shift it.
    func timeline(from time: UInt64, before seconds: Double = 0.3) -> Timeline {
        let since = time - min(time, UInt64(seconds * 1e9))
        return Timeline(chunks: recorder.all.filter { $0.timestamp >= since })
    }

    /// Waits until the capture has run `seconds` past `time`.
    func waitCaptured(past time: UInt64, seconds: Double, timeout: Double = 15) -> Bool {
        let until = time + UInt64(seconds * 1e9)
        return recorder.wait(timeout: timeout) { ($0.last?.timestamp ?? 0) >= until }
    }
}

/// The lag (ms, within ±`within`) at which `x`, placed at `time`, best matches what `t` heard: positive when
/// it was heard later than placed. Nil if `t` does not cover the search.
func bestLag(of x: [Int16], in t: Timeline, at time: UInt64, within: Double) -> Double? {
    let reach = Int(within * 16)
    let i0 = t.index(at: time)
    guard i0 >= reach, i0 + reach + x.count <= t.samples.count else { return nil }
    let a = x.map(Float.init), b = t.samples.map(Float.init)
    var best = -Float.infinity, bestLag = 0
    a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            for lag in -reach...reach {
                var dot: Float = 0, energy: Float = 0
                let base = i0 + lag
                for k in 0..<a.count {
                    dot += a[k] * b[base + k]
                    energy += b[base + k] * b[base + k]
                }
                let score = energy > 0 ? dot / energy.squareRoot() : 0
                if score > best { best = score; bestLag = lag }
            }
        }
    }
    // i0 is where `time` falls on the timeline; the timeline's own sample i is at t.time(ofSample: i).
    let exact = Double(Int64(t.time(ofSample: i0)) - Int64(time)) / 1e6
    return Double(bestLag) / 16 + exact
}

/// Maps captured samples to monotonic time through the capture's sample clock: sample i was heard at
/// t0 + i / rate, with t0 taken from the least-delayed read (reads return after their samples were heard, so
/// this errs late, never early).
struct Timeline {
    let samples: [Int16]
    let t0: UInt64
    let firstSequence: UInt64

    init(chunks: [AudioChunk]) {
        samples = chunks.flatMap(\.samples)
        firstSequence = chunks.first?.sequence ?? 0
        var best = UInt64.max
        for (k, c) in chunks.enumerated() {
            let end = UInt64(Double((k + 1) * Loopback.chunkSamples) / 16_000 * 1e9)
            if c.timestamp >= end { best = min(best, c.timestamp - end) }
        }
        t0 = best == .max ? 0 : best
        for (k, c) in chunks.enumerated() {
            precondition(c.sequence == firstSequence + UInt64(k), "gap in the capture")
        }
    }

    func time(ofSample i: Int) -> UInt64 { t0 + UInt64(Double(i) / 16_000 * 1e9) }

    func index(at time: UInt64) -> Int {
        time <= t0 ? 0 : min(samples.count, Int(Double(time - t0) / 1e9 * 16_000))
    }

    func isLoud(_ i: Int, threshold: Int16 = 300) -> Bool { abs(Int(samples[i])) > Int(threshold) }

    /// First and last sample above the threshold, searching from `from`.
    func loudSpan(from: Int = 0, threshold: Int16 = 300) -> ClosedRange<Int>? {
        guard from < samples.count,
              let a = (from..<samples.count).first(where: { isLoud($0, threshold: threshold) }),
              let b = (from..<samples.count).last(where: { isLoud($0, threshold: threshold) }) else { return nil }
        return a...b
    }

    /// The longest run of quiet samples inside `span`.
    func longestQuietRun(in span: ClosedRange<Int>, threshold: Int16 = 300) -> Int {
        var longest = 0, run = 0
        for i in span {
            if isLoud(i, threshold: threshold) { run = 0 } else { run += 1; longest = max(longest, run) }
        }
        return longest
    }
}

func percentile(_ xs: [UInt64], _ p: Double) -> Double {
    guard !xs.isEmpty else { return .nan }
    let s = xs.sorted()
    return Double(s[min(s.count - 1, Int(Double(s.count - 1) * p))])
}

final class PulseDaemonTests: XCTestCase {
    func testDeviceListingContainsTheNullSinkAndItsMonitor() throws {
        let server = try testPulseServer()
        let d = try AudioDevices.query(server: server)
        let sink = try XCTUnwrap(d.sinks.first { $0.name == nullSink })
        XCTAssertFalse(sink.description.isEmpty)
        let monitor = try XCTUnwrap(d.sources.first { $0.name == nullMonitor })
        XCTAssertTrue(monitor.isMonitor)
        XCTAssertEqual(d.sinks.filter(\.isDefault).count, 1)
        XCTAssertTrue(d.server.hasPrefix("pulseaudio") || d.server.contains("(on PipeWire "), d.server)
        XCTAssertTrue(d.listing.contains(nullSink))
        let probe = try AudioDevices.probe(server: server)
        XCTAssertNotNil(probe.defaultSink)
    }

    func testNoServerIsATypedErrorQuickly() throws {
        let server = "unix:/tmp/parley-no-such-dir-\(getpid())/native"
        let start = TimeSource.monotonic.nanoseconds()
        XCTAssertThrowsError(try AudioDevices.query(server: server, timeout: 2)) { e in
            guard case let .noServer(at, _)? = e as? PulseAudioError else { return XCTFail("\(e)") }
            XCTAssertEqual(at, server)
            XCTAssertTrue("\(e)".contains("no PulseAudio server at \(server)"), "\(e)")
            XCTAssertTrue("\(e)".contains("--no-audio"))
        }
        XCTAssertThrowsError(try PulseCapture(options: .init(server: server)).open { _ in }) { e in
            guard case .noServer? = e as? PulseAudioError else { return XCTFail("\(e)") }
        }
        XCTAssertThrowsError(try PulsePlayback(options: .init(server: server)).open()) { e in
            guard case .noServer? = e as? PulseAudioError else { return XCTFail("\(e)") }
        }
        XCTAssertLessThan((Double(TimeSource.monotonic.nanoseconds() - start) / 1e9), 2)
    }

    func testAServerThatNeverAnswersTimesOutInsteadOfHanging() throws {
        // A socket that accepts connections (the kernel's backlog) but never speaks.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-mute-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("native").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { Glibc.close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(fd, 8), 0)
        let start = TimeSource.monotonic.nanoseconds()
        XCTAssertThrowsError(try AudioDevices.query(server: "unix:\(path)", timeout: 1)) { e in
            guard case .noServer? = e as? PulseAudioError else { return XCTFail("\(e)") }
        }
        let elapsed = (Double(TimeSource.monotonic.nanoseconds() - start) / 1e9)
        XCTAssertGreaterThanOrEqual(elapsed, 0.9)
        XCTAssertLessThan(elapsed, 3)
    }

    func testDroppingOpenStreamsWithoutCloseStopsTheirThreads() throws {
        let server = try testPulseServer()
        weak var weakCapture: PulseCapture?
        weak var weakPlayback: PulsePlayback?
        do {
            let capture = PulseCapture(options: .init(server: server, device: nullMonitor))
            let playback = PulsePlayback(options: .init(server: server, device: nullSink))
            try capture.open { _ in }
            try playback.open()
            playback.write([Int16](repeating: 0, count: 2400))
            weakCapture = capture
            weakPlayback = playback
        }
        XCTAssertNil(weakCapture, "the thread does not keep the stream alive")
        XCTAssertNil(weakPlayback)
    }

    func testNamedDeviceThatDoesNotExist() throws {
        let server = try testPulseServer()
        XCTAssertThrowsError(try PulsePlayback(options: .init(server: server, device: "no_such_sink")).open()) { e in
            XCTAssertEqual(e as? PulseAudioError, .noSuchDevice(name: "no_such_sink", kind: .sink))
        }
    }

    func testToneComesBackOnTheMonitorAtTheRightFrequencyAndLevel() throws {
        let server = try testPulseServer()
        // The mono tone is upmixed to the stereo null sink (L = R) and the stereo monitor downmixed to the mono
        // capture: PulseAudio averages, (L + R) / 2, so the level comes back unchanged; PipeWire's channel mixer
        // sums at -3 dB, (L + R) / √2, so the same tone comes back 3.01 dB louder. Both are the servers' rules.
        let downmixGain = try testServerIsPipeWire(server) ? 3.01 : 0
        let loop = try Loopback(server: server)
        defer { loop.close() }
        let tone = Signals.sine(frequency: 1000, rate: 24_000, seconds: 1.0, amplitude: 0.5)
        // A reply comes after a pause (written within milliseconds of the pre-roll's drain completing, a
        // PulseAudio monitor can miss its first ~16 ms: see `restartPaddingMilliseconds`).
        XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.2))
        XCTAssertTrue(loop.playback.write(tone))
        loop.playback.drain()
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 15))
        XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.2))
        let t = loop.timeline()
        let span = try XCTUnwrap(t.loudSpan(), "the tone came back")
        let seconds = Double(span.count) / 16_000
        XCTAssertEqual(seconds, 1.0, accuracy: 0.01, "the whole tone, its first syllable included")
        let middle = Array(t.samples[(span.lowerBound + 1600)..<(span.upperBound - 1600)])
        // The frequency in 50 ms windows, and their median: a wrong rate is off in all of them by 8 % or more
        // (44.1 against 48 kHz; 16 against 24 kHz is 50 %), while on a loaded CI machine PipeWire's pulse server
        // once brought the tone back 1.5 % fast over the middle with its length right to 1 % (1015 Hz: played
        // or recorded at another rate for a while, as a server catching up with its graph does). 2 % tells the
        // two apart.
        let windows = Signals.windowFrequencies(middle, rate: 16_000, window: 800)
        let frequency = Signals.medianFrequency(middle, rate: 16_000, window: 800)
        XCTAssertEqual(frequency, 1000, accuracy: 20)
        XCTAssertEqual(AudioLevel(measuring: middle).rmsDBFS, -9.03 + downmixGain, accuracy: 1.0)
        XCTAssertEqual(AudioLevel(measuring: middle).peakDBFS, -6.02 + downmixGain, accuracy: 1.0)
        XCTAssertEqual(loop.playback.stats.underruns, 0)
        let off = windows.enumerated().filter { abs($0.element - 1000) > 10 }
            .map { String(format: "%.0f Hz at %d ms", $0.element, 100 + $0.offset * 50) }
        print("round trip: \(String(format: "%.3f", seconds)) s of tone at \(String(format: "%.1f", frequency)) Hz "
              + "(median of \(windows.count) windows of 50 ms\(off.isEmpty ? "" : "; off: " + off.joined(separator: ", "))), "
              + "RMS \(String(format: "%.2f", AudioLevel(measuring: middle).rmsDBFS)) dBFS")
    }

    /// How much of the start of a reply the monitor loses after the stream went idle (a drained turn, then
    /// silence), with no padding (the default) and with 20 ms; and how late the first sample is heard. A start is
    /// written at the server's read index: neither server loses any of it. (Written after the last block,
    /// PipeWire lost up to a graph cycle: 2–4 ms with 10 ms cycles, up to 20 ms with 21 ms cycles, in some
    /// starts and not others; a cycle of silence in front of each reply was what it lost, and delayed every
    /// reply by that cycle.)
    func testTheStartOfAReplyAfterAnIdleStreamIsHeard() throws {
        let server = try testPulseServer()
        let pipeWire = try testServerIsPipeWire(server)
        var lost: [Int: [Double]] = [:]
        var onset: [Int: Double] = [:]
        for (padding, starts) in [(0, 8), (20, 3)] {
            let loop = try Loopback(server: server, padding: padding)
            defer { loop.close() }
            var heard: [Double] = []
            var onsets: [Double] = []
            for _ in 0..<starts {
                XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.5), "idle for half a second")
                let start = TimeSource.monotonic.nanoseconds()
                loop.playback.write(Signals.sine(frequency: 1000, rate: 24_000, seconds: 0.3, amplitude: 0.5))
                loop.playback.drain()
                XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 10))
                XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.1))
                let t = loop.timeline(from: start)
                let span = try XCTUnwrap(t.loudSpan(from: t.index(at: start)))
                heard.append(Double(span.count) / 16)
                onsets.append(Double(Int64(t.time(ofSample: span.lowerBound)) - Int64(start)) / 1e6)
            }
            lost[padding] = heard.map { 300 - $0 }
            onset[padding] = onsets.sorted()[onsets.count / 2]
            print("restart padding \(padding) ms on \(pipeWire ? "PipeWire" : "PulseAudio"): heard "
                  + "\(heard.map { String(format: "%.1f", $0) }) of 300 ms, first sample after "
                  + "\(onsets.map { String(format: "%.1f", $0) }) ms")
        }
        XCTAssertLessThanOrEqual(lost[0]?.max() ?? 300, 1.5, "without padding every start of the reply is heard")
        XCTAssertLessThanOrEqual(lost[20]?.max() ?? 300, 1.5)
        // On PipeWire padding only delays the reply. PulseAudio sometimes plays a start behind 20 ms of padding
        // 20 ms early and 20 ms long (heard 319.9 ms, first sample 1.9 ms after the write, in 0–2 of 3 starts, a
        // fresh clone's run): its own doing, with or without a start at the read index; parley pads nothing.
        if pipeWire { XCTAssertLessThan(onset[0] ?? 100, onset[20] ?? 0, "padding only delays the reply") }
    }

    /// Where playback places what it plays (the echo canceller's far end, the header's latency) must agree with
    /// the sink's monitor, at a reply's start and through it, on every start: the first reply after the stream
    /// opened, and after short and long pauses. Placing from the server's timing as it was when the stream ran
    /// dry (hundreds of ms old) moved the far end by 20–40 ms from one reply to the next.
    func testTheFarEndIsPlacedWhereTheSinkPlaysIt() throws {
        let server = try testPulseServer()
        let f = try EchoFixtures()
        let canceller = try WebRTCCanceller()
        let starts = Collector<UInt64>()
        let loop = try Loopback(server: server, onStartHeard: { starts.append($0) }, canceller: canceller)
        defer { loop.close() }
        let seconds = 2.0
        let reply = Array(f.far24.prefix(Int(seconds * 24_000)))
        var offsets: [[Double]] = []
        for pause in [0.3, 1.0, 3.0, 0.5, 6.0] {
            XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: pause), "idle")
            let before = starts.all.count
            let written = TimeSource.monotonic.nanoseconds()
            loop.playback.write(reply)
            loop.playback.drain()
            XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 10))
            XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.2))
            XCTAssertTrue(starts.wait(timeout: 5) { $0.count > before }, "the start was reported")
            let from = written - 200_000_000
            let placed = canceller.farEnd(from: from, count: Int((seconds + 0.6) * 16_000))
            let heard = loop.timeline(from: from, before: 0)
            // Where each stretch of the reply was placed against where the monitor heard it (ms; later is positive).
            var row: [Double] = []
            for at in [0.25, 1.0, 1.8] {
                let window = Int(0.25 * 16_000)
                let a = Int(at * 16_000) - window / 2
                guard let lag = bestLag(of: Array(placed[a..<(a + window)]), in: heard, at: from + UInt64(Double(a) / 16 * 1e6),
                                        within: 100) else { XCTFail("the reply is on the monitor"); continue }
                row.append(lag)
            }
            let start = Double(Int64(starts.all[before]) - Int64(written)) / 1e6
            print(String(format: "after %.1f s idle: first sample placed %.1f ms after the write; ", pause, start)
                  + "heard on the monitor \(row.map { String(format: "%.1f", $0) }) ms after where it was placed")
            offsets.append(row)
        }
        // Each reply's place is the median of its stretches: the monitor is heard through a record stream, and
        // on PipeWire that stream once came back 5–9 ms off for one stretch of three in a reply (the graph's
        // quantum is 5.3 ms; one fresh-clone run on a new machine, not in the 7 before it nor in 6 after it, alone
        // or with the class), while the far end of a playing stream is one continuous signal (`FarEndTimeline`).
        // The fault this guards against moved whole replies 20–40 ms from each other, and once the far end 21 ms
        // inside one: both still fail.
        let medians = offsets.filter { !$0.isEmpty }.map { $0.sorted()[$0.count / 2] }
        let spread = (medians.max() ?? 0) - (medians.min() ?? 0)
        let inside = zip(offsets, medians).flatMap { row, m in row.map { abs($0 - m) } }.max() ?? 0
        print(String(format: "far-end placement against the monitor: spread %.1f ms between replies, "
                     + "a stretch %.1f ms from its reply's at most", spread, inside))
        XCTAssertLessThanOrEqual(spread, 10, "every reply is placed the same way")
        XCTAssertLessThanOrEqual(inside, 15, "every stretch of a reply is placed as the reply is")
    }

    /// Push-to-talk plays from a 20 ms server buffer; the echo canceller's open mic wants 80 ms. A change takes
    /// effect as a fresh stream with the new buffer, at once when idle, after the reply when one is playing
    /// (it plays out whole, on the buffer it started with).
    func testTheServerBufferFollowsTheTalkMode() throws {
        let server = try testPulseServer()
        let loop = try Loopback(server: server)
        defer { loop.close() }
        // Servers grant their own figures; a stream opened with 80 ms says what the server makes of 80.
        let small = try XCTUnwrap(loop.playback.serverBufferMilliseconds)
        let opened80 = try Loopback(server: server, targetLatencyMilliseconds: 80)
        let large = try XCTUnwrap(opened80.playback.serverBufferMilliseconds)
        opened80.close()
        XCTAssertGreaterThan(large, small)

        // A reply after a pause (see `testToneComesBackOnTheMonitorAtTheRightFrequencyAndLevel`).
        XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.2))
        let start = TimeSource.monotonic.nanoseconds()
        loop.playback.write(Signals.sine(frequency: 1000, rate: 24_000, seconds: 1.0, amplitude: 0.5))
        loop.playback.setTargetLatency(milliseconds: 80)
        XCTAssertEqual(loop.playback.targetLatencyMilliseconds, 80)
        XCTAssertEqual(loop.playback.serverBufferMilliseconds, small, "not while the reply plays")
        loop.playback.drain()
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 10))
        eventually(timeout: 5, "the new stream's \(large) ms") { loop.playback.serverBufferMilliseconds == large }
        XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.1))
        let t = loop.timeline(from: start)
        let span = try XCTUnwrap(t.loudSpan(from: t.index(at: start)))
        XCTAssertEqual(Double(span.count) / 16_000, 1.0, accuracy: 0.01, "the reply played whole")
        XCTAssertEqual(loop.playback.stats.underruns, 0)

        loop.playback.setTargetLatency(milliseconds: 20)
        eventually(timeout: 5, "back to \(small) ms soon when idle") { loop.playback.serverBufferMilliseconds == small }
        XCTAssertTrue(loop.playback.write(Signals.sine(frequency: 1000, rate: 24_000, seconds: 0.2, amplitude: 0.5)))
        loop.playback.drain()
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 10), "plays on the new stream")
        XCTAssertEqual(loop.playback.stats.reopens, 0, "a restart is not a device change")
        print("server buffer granted for 20 and 80 ms: \(small), \(large) ms")
    }

    /// The server asks for more audio as a stream plays (a REQUEST, a wake-up of the audio thread, which parley
    /// does not need: it tops the queue up on its own timer). With reply frames arriving in real time, so that
    /// the server's queue stays short, PipeWire's asked every `minreq` played: 95 times a second with 10 ms, 25 with
    /// 40 (`PlaybackBufferAttributes`). PulseAudio asks as often (100 a second) for what is missing below `tlength`
    /// there; the same request there cost the live canceller test ERLE (`PlaybackBufferAttributes`): left as it
    /// is, the figure printed. Replies faster than real time (the service's, the simulator's at 4×) keep its queue
    /// above `tlength`, and then it asks about twice a second.
    func testRepliesInRealTimeAreNotAskedForEveryCycleOrTwo() throws {
        let server = try testPulseServer()
        let pipeWire = try testServerIsPipeWire(server)
        let loop = try Loopback(server: server, targetLatencyMilliseconds: 40)  // the canceller's on PipeWire
        defer { loop.close() }
        let frame = Signals.sine(frequency: 440, rate: 24_000, seconds: 0.02, amplitude: 0.5)
        let before = loop.playback.stats.serverRequests
        let start = TimeSource.monotonic.nanoseconds()
        for k in 1...100 {
            XCTAssertTrue(loop.playback.write(frame))
            // The cadence is what is tested: a 20 ms frame every 20 ms, as the service streams a reply.
            let due = start + UInt64(k) * 20_000_000
            let now = TimeSource.monotonic.nanoseconds()
            if due > now { Thread.sleep(forTimeInterval: Double(due - now) / 1e9) }
        }
        let seconds = Double(TimeSource.monotonic.nanoseconds() - start) / 1e9
        let asks = Double(loop.playback.stats.serverRequests - before) / seconds
        loop.playback.drain()
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 15))
        print(String(format: "asked for more %.1f times a second while a reply came in real time (%@, server buffer %d ms)",
                     asks, pipeWire ? "PipeWire" : "PulseAudio", loop.playback.serverBufferMilliseconds ?? -1))
        try XCTSkipUnless(pipeWire, "PulseAudio's asks are left as they are (above)")
        XCTAssertLessThanOrEqual(asks, 40, "not an ask every graph cycle or two")
    }

    func testPlaybackMeterFollowsWhatIsHeard() throws {
        let loop = try Loopback(server: try testPulseServer())
        defer { loop.close() }
        XCTAssertLessThan(loop.playback.levels().rmsDBFS, -90)
        loop.playback.write(Signals.sine(frequency: 440, rate: 24_000, seconds: 1.0, amplitude: 0.5))
        XCTAssertTrue(loop.recorder.wait(timeout: 10) { $0.contains { $0.level.rmsDBFS > -12 } })
        let playing = loop.playback.levels()
        XCTAssertEqual(playing.rmsDBFS, -9.03, accuracy: 0.5)
        XCTAssertGreaterThan(loop.capture.levels().rmsDBFS, -12, "the capture meter hears the monitor")
        loop.playback.flush()
        XCTAssertLessThan(loop.playback.levels().rmsDBFS, -90, "flushed: the meter drops at once")
    }

    func testFlushSilencesTheMonitorQuickly() throws {
        // A 400 ms server buffer: without the server-side flush the tone would go on for 400 ms or more.
        let loop = try Loopback(server: try testPulseServer(), targetLatencyMilliseconds: 400)
        defer { loop.close() }
        loop.playback.write(Signals.sine(frequency: 1000, rate: 24_000, seconds: 4.0, amplitude: 0.5))
        let start = TimeSource.monotonic.nanoseconds()
        XCTAssertTrue(loop.recorder.wait(timeout: 15) { chunks in
            chunks.filter { $0.level.rmsDBFS > -12 && $0.timestamp > start }.count >= 25
        }, "half a second of tone is playing")
        let flushAt = TimeSource.monotonic.nanoseconds()
        loop.playback.flush()
        XCTAssertTrue(loop.waitCaptured(past: flushAt, seconds: 0.6))
        let t = loop.timeline()
        let span = try XCTUnwrap(t.loudSpan())
        let lastLoud = t.time(ofSample: span.upperBound)
        let ms = (Double(lastLoud) - Double(flushAt)) / 1e6
        print("flush → silence on the monitor: \(String(format: "%.1f", ms)) ms (tlength 400 ms)")
        XCTAssertLessThan(ms, 150, "silent soon after the flush (would be ≥ 400 ms without the server flush)")
        XCTAssertGreaterThan(span.count, 8_000, "the tone played before the flush")
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 5), "a flush leaves playback idle")
    }

    /// Barge-in then the next reply, 20 times: a 1 kHz reply is flushed mid-word and a 440 Hz one written at
    /// once. On the monitor the old reply stops and the new one starts; a click would be a short burst of sound
    /// on its own between them (last round: 2 of 30 flushed replies played a ~1 ms decaying click).
    func testAReplyAfterAFlushStartsWithoutAClick() throws {
        let loop = try Loopback(server: try testPulseServer())
        defer { loop.close() }
        var clicks: [Double] = []
        var gaps: [Double] = []
        var dropouts = 0
        for k in 0..<20 {
            XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.1))
            let start = TimeSource.monotonic.nanoseconds()
            loop.playback.write(Signals.sine(frequency: 1000, rate: 24_000, seconds: 1.0, amplitude: 0.5))
            // Flush 150–340 ms in, a different point of the waveform each time.
            XCTAssertTrue(loop.waitCaptured(past: start, seconds: 0.15 + Double(k) * 0.01))
            let flushAt = TimeSource.monotonic.nanoseconds()
            loop.playback.flush()
            loop.playback.write(Signals.sine(frequency: 440, rate: 24_000, seconds: 0.3, amplitude: 0.5))
            loop.playback.drain()
            XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 10))
            XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.1))
            let t = loop.timeline(from: start)
            // Runs of sound at least 2 ms apart, from the flush on.
            var runs: [ClosedRange<Int>] = []
            var quiet = 0
            for i in t.index(at: flushAt - 20_000_000)..<t.samples.count {
                if t.isLoud(i) {
                    if let last = runs.last, quiet < 32 { runs[runs.count - 1] = last.lowerBound...i } else { runs.append(i...i) }
                    quiet = 0
                } else {
                    quiet += 1
                }
            }
            // The old reply's tail (the flush takes 12–20 ms to reach the speaker), then the new reply, which
            // may follow at once. A click is a short burst on its own after the tail.
            let new = try XCTUnwrap(runs.last, "the new reply played")
            XCTAssertLessThanOrEqual(Double(new.count) / 16, 300 + 60, "the old reply stopped")
            for run in runs.dropFirst() where run.count < 16 * 20 { clicks.append(Double(run.count) / 16) }
            let long = runs.dropFirst().filter { $0.count >= 16 * 20 }
            if long.count > 1 { dropouts += long.count - 1 }
            gaps.append(runs.count >= 2 ? Double(runs[1].lowerBound - runs[0].upperBound) / 16 : 0)
        }
        print("flush then a new reply, 20 times: clicks \(clicks.map { String(format: "%.1f ms", $0) }), "
              + "silence between the replies \(gaps.map { String(format: "%.0f", $0) }) ms, "
              + "gaps of 2 ms or more inside a new reply: \(dropouts)")
        XCTAssertEqual(clicks, [], "no burst of sound between a flushed reply and the next")
    }

    func testBurstyInputPlaysGapFreeWithoutUnderruns() throws {
        let loop = try Loopback(server: try testPulseServer())
        defer { loop.close() }
        let tone = Signals.sine(frequency: 1000, rate: 24_000, seconds: 5.0, amplitude: 0.5)
        let piece = tone.count / 25
        let start = TimeSource.monotonic.nanoseconds()
        for k in 0..<25 {
            XCTAssertTrue(loop.playback.write(Array(tone[(k * piece)..<((k + 1) * piece)])))
            Thread.sleep(forTimeInterval: 0.008)  // the network delivering 5 s in 200 ms
        }
        loop.playback.drain()
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 30))
        let played = (Double(TimeSource.monotonic.nanoseconds() - start) / 1e9)
        XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.2))
        let stats = loop.playback.stats
        XCTAssertEqual(stats.underruns, 0)
        XCTAssertEqual(stats.droppedSamples, 0)
        XCTAssertGreaterThanOrEqual(stats.highWaterSamples, 24_000 * 4, "the burst was absorbed by our buffer")
        let t = loop.timeline()
        let span = try XCTUnwrap(t.loudSpan())
        let seconds = Double(span.count) / 16_000
        let gap = t.longestQuietRun(in: span)
        print("burst: \(String(format: "%.3f", seconds)) s of tone on the monitor, longest quiet run \(gap) samples, "
              + "played in \(String(format: "%.2f", played)) s, underruns \(stats.underruns)")
        XCTAssertEqual(seconds, 5.0, accuracy: 0.01, "correct duration")
        XCTAssertLessThanOrEqual(gap, 16, "no gap of 1 ms or more")
        XCTAssertGreaterThanOrEqual(played, 4.9)
    }

    /// The next reply's audio arrives while the last one's drain is still pending (the model speaks again at once,
    /// after a tool call): both are heard, one after the other, nothing lost or overwritten. (A drain that
    /// completes with a block written after it was asked for does not make the next start one on an empty queue:
    /// on PipeWire such a start is written after the last block, not at the read index.)
    func testAReplyWrittenWhileADrainIsPendingFollowsTheLast() throws {
        let loop = try Loopback(server: try testPulseServer())
        defer { loop.close() }
        let before = loop.playback.stats
        let tone = Signals.sine(frequency: 1000, rate: 24_000, seconds: 0.2, amplitude: 0.5)
        XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.3), "idle")
        let start = TimeSource.monotonic.nanoseconds()
        XCTAssertTrue(loop.playback.write(tone))
        loop.playback.drain()
        XCTAssertTrue(loop.playback.write(tone))
        loop.playback.drain()
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 10))
        XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.2))
        let t = loop.timeline(from: start)
        let span = try XCTUnwrap(t.loudSpan(from: t.index(at: start)))
        print("two replies, the second written during the first's drain: \(String(format: "%.1f", Double(span.count) / 16)) ms heard "
              + "of 400, longest quiet run \(t.longestQuietRun(in: span)) samples")
        XCTAssertEqual(Double(span.count) / 16, 400, accuracy: 1.5, "both heard whole")
        XCTAssertLessThanOrEqual(t.longestQuietRun(in: span), 16, "no gap of 1 ms or more between them")
        XCTAssertEqual(loop.playback.stats.underruns, before.underruns)
    }

    /// A reply whose audio stops coming mid-turn (the network stalls) runs the server dry: one underrun, however
    /// soon after the turn before it started (PipeWire reports the turn before's end late, sometimes after the
    /// next turn's first block; that one is not counted).
    func testRunningDryMidTurnIsOneUnderrun() throws {
        let loop = try Loopback(server: try testPulseServer())
        defer { loop.close() }
        let before = loop.playback.stats
        let piece = Signals.sine(frequency: 1000, rate: 24_000, seconds: 0.1, amplitude: 0.5)
        XCTAssertTrue(loop.playback.write(piece))
        Thread.sleep(forTimeInterval: 0.4)  // the stall: the 100 ms ran out 300 ms ago
        XCTAssertTrue(loop.playback.write(piece))
        loop.playback.drain()
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 10))
        XCTAssertEqual(loop.playback.stats.underruns - before.underruns, 1)
    }

    /// The service sends a reply faster than real time, in bursts (the simulator: 40 ms frames, 4× real time,
    /// a burst every 100 ms). Once the server holds enough to last until the audio thread's top-up timer, that
    /// timer hands the rest over in blocks of 200 ms or so (`aheadMilliseconds` / 2; 100 ms before: 38 blocks
    /// here, 26 now): a frame written on the network thread would wake the audio thread for a sliver (before
    /// that: a block for every frame, and blocks of a few samples between them).
    func testAReplyFasterThanRealTimeIsHandedOverInFewBlocks() throws {
        let loop = try Loopback(server: try testPulseServer())
        defer { loop.close() }
        let before = loop.playback.stats
        let tone = Signals.sine(frequency: 1000, rate: 24_000, seconds: 3.0, amplitude: 0.5)
        let frame = 24_000 * 40 / 1000
        let frames = tone.count / frame
        let start = TimeSource.monotonic.nanoseconds()
        for k in 0..<frames {
            XCTAssertTrue(loop.playback.write(Array(tone[(k * frame)..<((k + 1) * frame)])))
            // The cadence is what is tested: a burst of 10 frames (400 ms of audio) every 100 ms of real time.
            if k % 10 == 9 { Thread.sleep(forTimeInterval: 0.1) }
        }
        loop.playback.drain()
        XCTAssertTrue(loop.playback.waitUntilIdle(timeout: 30))
        let played = Double(TimeSource.monotonic.nanoseconds() - start) / 1e9
        XCTAssertTrue(loop.waitCaptured(past: TimeSource.monotonic.nanoseconds(), seconds: 0.2))
        let stats = loop.playback.stats
        let blocks = stats.blocksWritten - before.blocksWritten
        let byCaller = stats.blocksWrittenByCaller - before.blocksWrittenByCaller
        let t = loop.timeline()
        let span = try XCTUnwrap(t.loudSpan())
        let gap = t.longestQuietRun(in: span)
        print("a reply at 4× real time: \(frames) frames written, \(blocks) blocks handed to the server (\(byCaller) by the "
              + "writer), \(String(format: "%.3f", Double(span.count) / 16_000)) s heard in \(String(format: "%.2f", played)) s, "
              + "longest quiet run \(gap) samples, underruns \(stats.underruns - before.underruns)")
        XCTAssertEqual(stats.underruns, before.underruns)
        XCTAssertEqual(Double(span.count) / 16_000, 3.0, accuracy: 0.01, "the whole reply is heard")
        XCTAssertLessThanOrEqual(gap, 16, "no gap of 1 ms or more")
        // Until the server holds 200 ms, frames go straight to it (the start is heard at once); then a top-up
        // every 200 ms for the 2.6 s or so that still wait, and the drain's last block.
        XCTAssertLessThanOrEqual(byCaller, 16, "the writer's thread hands over only the start")
        XCTAssertLessThanOrEqual(blocks, 32, "a block per top-up, a top-up per 200 ms, not per frame")
    }

    func testGateOnARealCapture() throws {
        let server = try testPulseServer()
        let rec = ChunkRecorder()
        let reads = Collector<UInt64>()
        let capture = PulseCapture(options: .init(server: server, device: nullMonitor), onLevel: { _ in reads.append(0) })
        try capture.open { rec.append($0) }
        defer { capture.close() }
        // Closed: reads go on, nothing is delivered.
        XCTAssertTrue(reads.wait(timeout: 10) { $0.count >= 10 })
        XCTAssertGreaterThanOrEqual(capture.stats.chunksRead, 10)
        XCTAssertEqual(rec.all.count, 0)
        capture.setGate(open: true)
        XCTAssertTrue(rec.wait(timeout: 10) { $0.count >= 5 })
        capture.setGate(open: false)
        XCTAssertTrue(rec.wait(timeout: 10) { $0.last?.endsGate == true })
        let n = rec.all.count
        let read = reads.all.count
        XCTAssertTrue(reads.wait(timeout: 10) { $0.count >= read + 5 }, "five more chunks read with the gate closed")
        XCTAssertEqual(rec.all.count, n, "nothing after the chunk that ended the gate")
        XCTAssertEqual(rec.all.filter(\.endsGate).count, 1)
        for c in rec.all { XCTAssertEqual(c.samples.count, 320) }
    }

    /// A server hands a record stream each piece its source posts: while another program records the same
    /// source with 2 ms fragments, the pieces are 2 ms long. The audio thread should still wake about twice per
    /// 20 ms chunk (once for the pieces that waited through the hold, once for the piece that completes the
    /// chunk), not for every piece (10 a chunk before the loop held the server's data), and lose nothing.
    /// (PipeWire's server sends 20 ms pieces whatever the other recorder asks, a piece's header and data apart: 2
    /// polls a chunk with or without, 1.3–1.8 sleeps.)
    func testAnotherRecorderWithShortPiecesDoesNotWakeTheLoopForEachPiece() throws {
        let server = try testPulseServer()
        let ctx = try PulseContext(server: server, timeout: 3)
        let sink = "parley_pieces_\(getpid())"
        let module = try ctx.loadModule("module-null-sink", arguments: "sink_name=\(sink)", timeout: 3)
        defer { _ = try? ctx.unloadModule(module, timeout: 3) }
        let rec = ChunkRecorder()
        let capture = PulseCapture(options: .init(server: server, device: sink + ".monitor"))
        capture.setGate(open: true)
        try capture.open { rec.append($0) }
        defer { capture.close() }
        XCTAssertTrue(rec.wait(timeout: 10) { $0.count >= 5 }, "the stream started")
        let alone = capture.stats
        let aloneSleeps = audioThreadSleeps()
        XCTAssertTrue(rec.wait(timeout: 10) { $0.count >= 30 }, "half a second captured alone")
        let aloneAfter = capture.stats
        let aloneSleepsAfter = audioThreadSleeps()
        // Alone, both servers send pieces as long as the chunk (PulseAudio the 20 ms parley asked for; PipeWire's
        // 20 ms once a graph cycle): the loop waits for each unheld. A hold ends before the piece that completes
        // the chunk and costs a wait of its own: a timed-out hold, then the data, in an strace. PipeWire's server
        // writes a piece's header and its data apart, and the loop polls twice for them (2.16 polls a chunk, 1.3–1.8
        // sleeps of the audio thread): polls asserted on PulseAudio only.
        let aloneChunks = Double(aloneAfter.chunksRead - alone.chunksRead)
        let alonePerChunk = Double(aloneAfter.loopWakeups - alone.loopWakeups) / aloneChunks
        let aloneEmptyHolds = Double(aloneAfter.holdsEndedEmpty - alone.holdsEndedEmpty) / aloneChunks
        print(String(format: "audio thread wake-ups per 20 ms chunk alone: %.2f; sleeps %.2f; holds ended empty %.2f",
                     alonePerChunk, Double(aloneSleepsAfter - aloneSleeps) / aloneChunks, aloneEmptyHolds))
        XCTAssertLessThanOrEqual(aloneEmptyHolds, 0.1, "held for pieces as long as the chunk")
        if try !testServerIsPipeWire(server) {
            XCTAssertLessThanOrEqual(alonePerChunk, 1.5, "the loop woke more than once for each of the server's pieces")
        }
        // The other program starts while parley records (a call in a browser): the pieces shrink at once.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        other.arguments = ["parec", "--server=\(server)", "--device=\(sink).monitor", "--format=s16le", "--rate=16000",
                           "--channels=1", "--latency-msec=2", "--raw"]
        other.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try other.run()
        defer {
            other.terminate()
            other.waitUntilExit()
        }
        XCTAssertTrue(rec.wait(timeout: 10) { $0.count >= 55 }, "half a second beside the other recorder")
        let before = capture.stats
        let sleepsBefore = audioThreadSleeps()
        XCTAssertTrue(rec.wait(timeout: 20) { $0.count >= 55 + 100 }, "two more seconds captured")
        let after = capture.stats
        let sleepsAfter = audioThreadSleeps()
        XCTAssertTrue(other.isRunning, "the other recorder ran throughout")
        let chunks = Double(after.chunksRead - before.chunksRead)
        let perChunk = Double(after.loopWakeups - before.loopWakeups) / chunks
        print(String(format: "audio thread wake-ups per 20 ms chunk beside a 2 ms recorder: %.2f; sleeps %.2f; holds ended empty %.2f",
                     perChunk, Double(sleepsAfter - sleepsBefore) / chunks,
                     Double(after.holdsEndedEmpty - before.holdsEndedEmpty) / chunks))
        XCTAssertLessThanOrEqual(perChunk, 3.5, "the loop woke for the server's small pieces")
        // Held until just after the piece that completes the chunk (`PulseCapture.lateHoldNanoseconds`), 7 chunks
        // in 8 take one wake-up: 1.14–1.18 a chunk on PulseAudio (2.00 when every hold ended before the piece).
        if try !testServerIsPipeWire(server) {
            XCTAssertLessThanOrEqual(perChunk, 1.75, "the hold ended before the piece that completes the chunk")
        }
        let sequences = rec.all.map(\.sequence)
        XCTAssertEqual(sequences, Array(sequences.first!...sequences.last!), "no chunk lost or reordered")
        for c in rec.all { XCTAssertEqual(c.samples.count, 320) }
    }

    func testADeviceThatDisappearsIsReportedAndTheStreamReopensOnTheDefault() throws {
        let server = try testPulseServer()
        let ctx = try PulseContext(server: server, timeout: 3)
        let module = try ctx.loadModule("module-null-sink", arguments: "sink_name=parley_gone", timeout: 3)
        let events = ChunkEvents()
        let rec = ChunkRecorder()
        let capture = PulseCapture(options: .init(server: server, device: "parley_gone.monitor"),
                                   onEvent: { events.append($0) })
        let playback = PulsePlayback(options: .init(server: server, device: "parley_gone"), onEvent: { events.append($0) })
        defer {
            capture.close()
            playback.close()
        }
        try capture.open { rec.append($0) }
        capture.setGate(open: true)
        try playback.open()
        playback.write(Signals.sine(frequency: 440, rate: 24_000, seconds: 20))
        XCTAssertTrue(rec.wait(timeout: 10) { $0.count >= 5 })
        XCTAssertTrue(try ctx.unloadModule(module, timeout: 3))
        events.wait(timeout: 15) { all in all.filter { if case .reopened = $0 { return true }; return false }.count >= 2 }
        let all = events.all
        XCTAssertTrue(all.contains { if case .deviceLost(.source, "parley_gone.monitor", _) = $0 { return true }; return false }, "\(all)")
        XCTAssertTrue(all.contains { if case .deviceLost(.sink, "parley_gone", _) = $0 { return true }; return false }, "\(all)")
        XCTAssertTrue(all.contains(.reopened(kind: .source, device: nil)), "\(all)")
        XCTAssertTrue(all.contains(.reopened(kind: .sink, device: nil)), "\(all)")
        let n = rec.all.count
        XCTAssertTrue(rec.wait(timeout: 10) { $0.count >= n + 5 }, "capture goes on from the default source")
        XCTAssertEqual(capture.stats.reopens, 1)
    }

    // Named to run last in the suite (XCTest runs a class's tests in name order): on PipeWire the test that ran
    // right after this one lost 5 ms of tone in 2 of 8 runs (bursty input, 0 in 5 without this test before it).
    func testWhenTheServerDiesItIsReportedRetriedAndClosesCleanly() throws {
        _ = try testPulseServer()  // the daemon tests are enabled
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pulse-daemon.sh")
        guard FileManager.default.isExecutableFile(atPath: script.path) else { throw XCTSkip("no \(script.path)") }
        let dir = "/tmp/parley-audio-dying-\(getpid())"
        func daemon(_ verb: String) throws -> String {
            let p = Process()
            let out = Pipe()
            p.executableURL = script
            p.arguments = [verb, dir]
            p.standardOutput = out
            try p.run()
            p.waitUntilExit()
            return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let server = try daemon("start")
        defer {
            _ = try? daemon("stop")
            try? FileManager.default.removeItem(atPath: dir)
        }
        XCTAssertEqual(server, "unix:\(dir)/native")
        let events = ChunkEvents()
        let rec = ChunkRecorder()
        let capture = PulseCapture(options: .init(server: server), onEvent: { events.append($0) })
        let playback = PulsePlayback(options: .init(server: server), onEvent: { events.append($0) })
        capture.setGate(open: true)
        try capture.open { rec.append($0) }
        try playback.open()
        playback.write(Signals.sine(frequency: 440, rate: 24_000, seconds: 30))
        XCTAssertTrue(rec.wait(timeout: 10) { $0.count >= 5 })
        _ = try daemon("stop")
        func failedToReopen(_ kind: PulseAudioError.DeviceKind, in all: [AudioEvent]) -> Bool {
            all.contains { if case .reopenFailed(kind, _) = $0 { return true }; return false }
        }
        func failedToReopen(_ kind: PulseAudioError.DeviceKind) -> Bool { failedToReopen(kind, in: events.all) }
        events.wait(timeout: 10) { failedToReopen(.source, in: $0) && failedToReopen(.sink, in: $0) }
        let all = events.all
        XCTAssertTrue(all.contains { if case .deviceLost(.source, nil, .streamFailed) = $0 { return true }; return false }, "\(all)")
        XCTAssertTrue(all.contains { if case .deviceLost(.sink, nil, _) = $0 { return true }; return false }, "\(all)")
        XCTAssertTrue(failedToReopen(.source), "\(all)")
        XCTAssertTrue(failedToReopen(.sink), "\(all)")
        XCTAssertTrue(playback.write([1, 2, 3]), "writes are still accepted (and buffered) while retrying")
        let start = TimeSource.monotonic.nanoseconds()
        capture.close()
        playback.close()
        XCTAssertLessThan((Double(TimeSource.monotonic.nanoseconds() - start) / 1e9), 3, "close does not hang")
        XCTAssertFalse(playback.write([1]), "closed")
    }

    func testEchoCancellerLoadsAndUnloadsOnEveryPath() throws {
        let server = try testPulseServer()
        // module-echo-cancel refuses a sink and its own monitor: give it a separate "microphone".
        let ctx = try PulseContext(server: server, timeout: 3)
        let mic = try ctx.loadModule("module-null-sink", arguments: "sink_name=parley_mic", timeout: 3)
        defer { _ = try? ctx.unloadModule(mic, timeout: 3) }
        let ec: PulseEchoModule
        do {
            ec = try PulseEchoModule(server: server, source: "parley_mic.monitor", sink: nullSink)
        } catch {
            throw XCTSkip("module-echo-cancel with webrtc is not available here: \(error)")
        }
        var d = try AudioDevices.query(server: server)
        XCTAssertTrue(d.sources.contains { $0.name == ec.sourceName })
        XCTAssertTrue(d.sinks.contains { $0.name == ec.sinkName })
        // Streams open on the virtual devices.
        let rec = ChunkRecorder()
        let capture = PulseCapture(options: .init(server: server, device: ec.sourceName))
        capture.setGate(open: true)
        try capture.open { rec.append($0) }
        XCTAssertTrue(rec.wait(timeout: 10) { $0.count >= 3 })
        capture.close()
        try ec.unload()
        try ec.unload()
        XCTAssertFalse(ec.isLoaded)
        d = try AudioDevices.query(server: server)
        XCTAssertFalse(d.sources.contains { $0.name == ec.sourceName })
        XCTAssertFalse(d.sinks.contains { $0.name == ec.sinkName })
        // deinit unloads too.
        var name = ""
        do {
            let scoped = try PulseEchoModule(server: server, source: "parley_mic.monitor", sink: nullSink)
            name = scoped.sourceName
        }
        d = try AudioDevices.query(server: server)
        XCTAssertFalse(d.sources.contains { $0.name == name })
        // A leftover from a killed parley (a pid that does not run) is cleaned up; ours is not touched.
        let deadPID = 999_999
        let leftover = try ctx.loadModule("module-echo-cancel", arguments:
            "aec_method=webrtc source_name=parley_ec_\(deadPID)_1_source sink_name=parley_ec_\(deadPID)_1_sink "
            + "source_master=parley_mic.monitor sink_master=\(nullSink)", timeout: 3)
        let live = try PulseEchoModule(server: server, source: "parley_mic.monitor", sink: nullSink)
        XCTAssertEqual(try PulseEchoModule.unloadLeftovers(server: server), 1)
        let modules = try ctx.modules(timeout: 3)
        XCTAssertFalse(modules.contains { $0.index == leftover })
        XCTAssertTrue(modules.contains { $0.index == live.moduleIndex })
        try live.unload()
        XCTAssertEqual(PulseEchoModule.ownerPID(ofArguments: "aec_method=webrtc source_name=parley_ec_42_3_source"), 42)
        XCTAssertNil(PulseEchoModule.ownerPID(ofArguments: "source_name=other"))
    }
}

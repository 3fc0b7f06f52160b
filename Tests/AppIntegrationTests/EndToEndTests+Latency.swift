import Foundation
import ParleyTesting
import XCTest

/// The latency stats overlay in a real terminal.
extension EndToEndTests {
    func testLatencyStatsShowTheFirstWordsOfATypedTurn() throws {
        let tmux = try Tmux(env: env())
        defer { tmux.close() }
        try tmux.type("\(shellQuoted(Binaries.parley)) --demo --no-audio; echo EXITED:$?", enter: true)
        try tmux.wait(for: "live and DEMO in the header") { $0.contains("live") && $0.contains("DEMO") }
        try tmux.type("L")
        try tmux.wait(for: "no turn timed yet")
        try tmux.keys("Escape")
        try tmux.wait(for: "the stats closed") { !$0.contains("Latency per turn") }

        try tmux.keys("Tab")
        try tmux.type("how fast are you", enter: true)
        try tmux.wait(for: "turn 1 of our")
        try tmux.keys("Escape")
        try tmux.type("L")
        let screen = try tmux.wait(for: "a p50 for the first words") { screen in
            screen.split(separator: "\n").contains { Self.firstWordsMedian(in: String($0)) != nil }
        }
        let row = try XCTUnwrap(screen.split(separator: "\n").first { $0.contains("first words on screen") }, screen)
        let p50 = try XCTUnwrap(Self.firstWordsMedian(in: String(row)), screen)
        XCTAssertGreaterThanOrEqual(p50, 0, screen)
        XCTAssertLessThan(p50, 20_000, "a demo reply comes within the test's wait: \(screen)")
        XCTAssertTrue(screen.contains("first sound played"), screen)

        try tmux.type("L")
        try tmux.wait(for: "the stats closed") { !$0.contains("Latency per turn") }
        try tmux.type("q")
        try tmux.wait(for: "EXITED:0")
    }

    /// The p50 of the "first words on screen" row (`first words on screen  1  412 ms  412 ms  412 ms`): the
    /// second of its millisecond figures, nil until a turn is timed.
    static func firstWordsMedian(in line: String) -> Int? {
        guard let start = line.range(of: "first words on screen") else { return nil }
        let figures = line[start.upperBound...].components(separatedBy: " ms").dropLast()
            .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        return figures.count >= 2 ? figures[1] : nil
    }
}

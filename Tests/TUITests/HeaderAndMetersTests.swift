import XCTest
@testable import TUI

final class HeaderAndMetersTests: XCTestCase {
    func testConnectionStatesHaveTheirOwnRoles() {
        let cases: [(ConnectionState, String, Role)] = [
            (.connecting, "● connecting", .stateConnecting), (.live, "● live", .stateLive),
            (.resuming(inSeconds: 4), "● resuming in 4 s", .stateResuming), (.resuming(inSeconds: nil), "● resuming", .stateResuming),
            (.failed(reason: "bad key"), "● failed: bad key", .stateFailed), (.offline, "● offline", .stateOffline),
        ]
        for (state, text, role) in cases {
            for width in [80, 120] {
                let lines = HeaderView.render(HeaderModel(model: "m", voice: "Kore", connection: state), width: width)
                XCTAssertEqual(lines.count, 2)
                XCTAssertTrue(lines.allSatisfy { $0.width == width })
                XCTAssertTrue(lines[0].runs.contains { $0.text == text && $0.role == role }, "\(state) at \(width): \(lines[0].runs)")
            }
        }
    }

    func testModesDemoAndCountdowns() {
        var m = HeaderModel(model: "gemini", voice: "Puck", connection: .live, sessionAge: 3725, goAwaySeconds: 9,
                            tokens: 1234567, latencyMs: 385, pushToTalk: .kittyHold, demo: true)
        var lines = HeaderView.render(m, width: 120)
        XCTAssertTrue(lines[0].text.hasSuffix(" DEMO  "), "DEMO one column in from the edge")
        XCTAssertEqual(lines[0].runs.dropLast().last, StyledRun(" DEMO ", .demoMarker))
        XCTAssertTrue(lines[1].text.hasPrefix(" session 1:02:05  goAway in 9 s  tokens 1,234,567  latency 385 ms   "), lines[1].text)
        XCTAssertTrue(lines[1].text.hasSuffix("   PTT: hold (kitty) "), lines[1].text)
        XCTAssertEqual(lines[1].width, 120)
        m.pushToTalk = .openMic
        m.demo = false
        lines = HeaderView.render(m, width: 80)
        XCTAssertTrue(lines[1].text.hasSuffix(" open mic "))
        XCTAssertFalse(lines[0].text.contains("DEMO"))
        m.pushToTalk = .tapToggle
        lines = HeaderView.render(m, width: 40)
        XCTAssertEqual(lines[1].text, " session 1:02:05          PTT: tap/hold ", "items that do not fit are left out")
    }

    func testMeterBarPeakClipAndSilence() {
        let m = MetersModel(mic: LevelReading(level: -30, peak: -12, clipped: false),
                            speaker: LevelReading(level: 0, peak: 0, clipped: true), talking: true, echoProtection: "echo: AEC")
        let lines = MetersView.render(m, width: 80)
        XCTAssertEqual(lines.map(\.width), [80, 80])
        let mic = lines[0].text, spk = lines[1].text
        // 40-cell bar for -60…0 dB: -30 dB fills 20 cells, the -12 dB peak sits at cell 32.
        XCTAssertTrue(mic.hasPrefix(" mic [" + String(repeating: "|", count: 20) + String(repeating: " ", count: 11) + "|"), mic)
        XCTAssertTrue(mic.contains("] -30 dB      ● talking"), mic)
        XCTAssertTrue(spk.contains("[" + String(repeating: "|", count: 40) + "]   0 dB CLIP echo: AEC"), spk)
        let roles = lines[1].runs.map(\.role)
        XCTAssertTrue(roles.contains(.meterLow) && roles.contains(.meterMid) && roles.contains(.meterHot) && roles.contains(.meterClip))
        XCTAssertTrue(lines[0].runs.contains { $0.role == .meterPeak })
        let silent = MetersView.render(MetersModel(micMuted: true), width: 80)
        XCTAssertTrue(silent[0].text.contains("[" + String(repeating: " ", count: 40) + "]  -∞ dB      muted"), silent[0].text)
    }

    /// The bar drawn in runs has, cell for cell, the colour the scale gives that cell (low under -18 dB, mid under
    /// -6, hot above; the peak mark past the level; empty): levels every 0.7 dB with peaks above them, at four
    /// floors (one a hair under zero, where the first guess at a colour's edge is far past any Int) and four widths.
    func testEveryBarCellHasItsColour() {
        var checked = 0
        for floor in [-60.0, -45, -12, -1e-20] {
            for width in [36, 48, 80, 133] {
                let infoW = min(28, max(10, width / 4))
                let barW = width - 5 - 2 - 7 - 5 - 1 - infoW
                guard barW >= 4 else { continue }
                func pos(_ db: Double) -> Int { Int(((min(0, max(floor, db)) - floor) / -floor * Double(barW)).rounded()) }
                for tenth in stride(from: Int(floor * 10) - 5, through: 0, by: 7) {
                    let level = Double(tenth) / 10, peak = min(0, level + Double(tenth % 13))
                    let m = MetersModel(mic: LevelReading(level: level, peak: peak), floor: floor)
                    let line = MetersView.render(m, width: width)[0]
                    var cells: [Role] = []
                    for run in line.runs { cells += Array(repeating: run.role, count: run.text.count) }
                    let bar = Array(cells[6..<(6 + barW)])  // after " mic ["
                    let filled = pos(level), peakCell = pos(peak) - 1
                    let expected: [Role] = (0..<barW).map { i in
                        let db = floor + Double(i) / Double(barW) * -floor
                        if i < filled { return db >= -6 ? .meterHot : db >= -18 ? .meterMid : .meterLow }
                        return i == peakCell ? .meterPeak : .meterEmpty
                    }
                    XCTAssertEqual(bar, expected, "floor \(floor), width \(width), level \(level), peak \(peak)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 300)
    }
}

final class DirtyRegionTests: XCTestCase {
    func testChangedRegions() {
        let a = Fixtures.state()
        var b = a
        XCTAssertEqual(DirtyRegions.changed(from: a, to: b), [])
        b.meters.mic.level = -3
        XCTAssertEqual(DirtyRegions.changed(from: a, to: b), .meters)
        b = a
        b.transcript.stream(.model, " more")
        XCTAssertEqual(DirtyRegions.changed(from: a, to: b), .transcript)
        b = a
        b.overlay = .help(top: 0)
        XCTAssertEqual(DirtyRegions.changed(from: a, to: b), [.overlay, .status])
        b = a
        b.header.pushToTalk = .openMic
        XCTAssertEqual(DirtyRegions.changed(from: a, to: b), [.header, .status])
        b = a
        b.toolLog.focus()
        XCTAssertEqual(DirtyRegions.changed(from: a, to: b), [.toolLog, .status])
        b = a
        b.input = LineEditor()
        XCTAssertEqual(DirtyRegions.changed(from: a, to: b), [.input, .status])
    }
}

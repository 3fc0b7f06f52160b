import Foundation
import XCTest

@testable import App

/// What fuzzing found in the App module's parsers (libFuzzer through `scripts/fuzz.sh`, or read while writing
/// its targets and replayed through them), each input kept as the regression it is.
final class FuzzFindingsTests: XCTestCase {
    /// `scripts/fuzz.sh config`: a table name starting with a character toml++ does not expect aborted parley.
    func testAConfigTableNameTomlPlusPlusWouldAbortOnIsASyntaxError() {
        for text in ["[\u{8C}\u{9E}ence_duspeakerms = \"long\"\n", "model = \"x\"\n[é]\n", "[tools]\nallowed_directories = [}]\n"] {
            var c = Config()
            XCTAssertThrowsError(try c.apply(toml: text, file: "/tmp/config.toml"), text.debugDescription) { e in
                XCTAssertTrue("\(e)".hasPrefix("/tmp/config.toml:"), "\(e)")
            }
        }
    }

    /// `scripts/fuzz.sh image`: a PPM header with a width of 75 digits overflowed Int and trapped.
    func testAPPMHeaderWithAnEndlessNumberIsNoPicture() {
        var s = PPMStreamSplitter()
        let header = "P6" + String(repeating: "6", count: 75) + " 0 0 2\u{1}\0\0\0\0\0\0\u{E} \u{1}"
        XCTAssertEqual(s.push(Array(header.utf8)[...]), [])
        var t = PPMStreamSplitter()
        XCTAssertEqual(t.push(Array("P6 99999999999999999999 1 255\n".utf8)[...]), [])
        var u = PPMStreamSplitter()
        XCTAssertEqual(u.push(Array("P6 1 1 255\n".utf8)[...] + [1, 2, 3]), [PPMStreamSplitter.Picture(width: 1, height: 1, rgb: [1, 2, 3])])
    }

    /// Read while writing the state target: a resumption file saved "1e300 seconds ago" trapped in Int(age / 60).
    func testAResumeFileFromLongAgoSaysSoInsteadOfTrapping() throws {
        let path = NSTemporaryDirectory() + "parley-resume-\(getpid()).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"handle":"x","savedAt":-1e300,"model":"m","voice":"Puck","transcript":"/t/session-1.jsonl"}"#.utf8).write(to: URL(fileURLWithPath: path))
        guard case .failure(let e) = ResumeStore(path: path).handle(for: "/t/session-1.jsonl", model: "m") else { return XCTFail("a handle that old is not usable") }
        XCTAssertTrue("\(e)".contains("more than a year old"), "\(e)")
    }

    /// Read while writing the transcript target: `parley export` summed token counts near Int.max and trapped.
    func testExportOfATranscriptWithAbsurdTokenCountsDoesNotTrap() throws {
        let lines = #"{"kind":"usage","usage":{"totalTokenCount":9223372036854775807}}"# + "\n" + #"{"kind":"usage","usage":{"totalTokenCount":9}}"#
        let path = NSTemporaryDirectory() + "parley-session-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(lines.utf8).write(to: URL(fileURLWithPath: path))
        let records = try TranscriptStore.read(path)
        XCTAssertEqual(records.count, 2)
        // The absurd count reads as unknown (outside int32); the other turn's 9 tokens are the total.
        let markdown = TranscriptStore.markdown(records, title: "t")
        let total = markdown.split(separator: "\n").first { $0.hasPrefix("| **total** |") }
        XCTAssertEqual(total.map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }[6] }, "9", markdown)
    }
}

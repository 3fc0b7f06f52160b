import Foundation
import XCTest

@testable import App

/// What `scripts/fuzz.sh` found in the App module's parsers, each input kept as the regression it is.
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
}

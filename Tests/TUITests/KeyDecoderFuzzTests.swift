import XCTest

@testable import TUI

/// Terminal input found to trap the key decoder (read while writing `scripts/fuzz.sh keys`, replayed through it).
final class KeyDecoderFuzzTests: XCTestCase {
    func testModifierFieldsOfAnySizeDecode() {
        var d = KeyDecoder()
        let events = d.feed(Array("\u{1b}[1;-9223372036854775808A\u{1b}[1;9223372036854775807B\u{1b}[97;-3u".utf8), now: 0)
        XCTAssertEqual(events, [
            .key(KeyEvent(.up, [], kind: .press)),
            .key(KeyEvent(.down, Modifiers(encoded: 9_223_372_036_854_775_807), kind: .press)),
            .key(KeyEvent(.character("a"), [], kind: .press)),
        ])
    }
}

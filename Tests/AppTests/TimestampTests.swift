import Foundation
import ParleyTime
import XCTest

/// The stamps written without ICU match what Foundation's formatters wrote before.
final class TimestampTests: XCTestCase {
    let instants: [Double] = [0, 951_782_400.5, 1_700_000_000, 1_795_000_000.999, 4_102_444_799]

    func testISO8601UTCMatchesFoundation() {
        let f = ISO8601DateFormatter()
        for s in instants {
            XCTAssertEqual(Timestamp.iso8601UTC(secondsSince1970: s), f.string(from: Date(timeIntervalSince1970: s)))
        }
        XCTAssertEqual(Timestamp.iso8601UTC(secondsSince1970: 1_795_000_000), "2026-11-18T11:06:40Z")
    }

    func testLocalFileStampMatchesFoundationInTheLocalTimeZone() {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd'T'HH-mm-ss"
        for s in instants {
            XCTAssertEqual(Timestamp.localFileStamp(secondsSince1970: s), f.string(from: Date(timeIntervalSince1970: s)))
        }
    }
}

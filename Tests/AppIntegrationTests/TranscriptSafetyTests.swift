import Foundation
import ParleyTesting
import XCTest

@testable import App

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11 item 3: a transcript that cannot be written says so once, stays whole lines, and fails the run;
/// an unwritable directory says so at launch.
final class TranscriptSafetyTests: XCTestCase {
    var mountPoint: String!

    /// A tiny tmpfs (root only), so the disk really fills up.
    func mountTmpfs(_ options: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-tmpfs-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let r = try shell(["mount", "-t", "tmpfs", "-o", options, "tmpfs", dir], timeout: 10)
        guard r.status == 0 else {
            try? FileManager.default.removeItem(atPath: dir)
            throw XCTSkip("cannot mount a tmpfs here (\(r.err)); run as root")
        }
        mountPoint = dir
        return dir
    }

    override func tearDownWithError() throws {
        if let mountPoint {
            _ = try? shell(["umount", mountPoint], timeout: 10)
            try? FileManager.default.removeItem(atPath: mountPoint)
        }
    }

    func testAFullDiskIsReportedOnceTheFileStaysWholeLinesAndTheRunFails() throws {
        let dir = try mountTmpfs("size=64k")
        let store = try TranscriptStore(directory: dir + "/t")
        var reports: [String] = []
        store.onFailure = { reports.append($0) }
        let line = String(repeating: "words ", count: 300)
        for i in 0..<200 { store.append(.line(speaker: .model, text: "\(i) \(line)", interrupted: false)) }
        store.close()
        XCTAssertEqual(reports.count, 1, "\(reports)")
        XCTAssertTrue(reports.first?.contains("the disk is full") == true, "\(reports)")
        XCTAssertNotNil(store.failure)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        XCTAssertTrue(text.isEmpty || text.hasSuffix("\n"), "no half record at the end")
        let lines = text.split(separator: "\n").count
        XCTAssertGreaterThan(lines, 0)
        XCTAssertEqual(try TranscriptStore.read(store.path).count, lines, "every line is a whole record")
    }

    func testAReadOnlyDirectoryIsRefusedWithTheReason() throws {
        let dir = try mountTmpfs("size=64k,ro")
        XCTAssertThrowsError(try TranscriptStore(directory: dir + "/t")) { e in
            XCTAssertTrue("\(e)".contains("cannot create the transcript directory"), "\(e)")
        }
        XCTAssertThrowsError(try TranscriptStore(directory: dir)) { e in
            XCTAssertTrue("\(e)".contains("Read-only file system"), "\(e)")
        }
        XCTAssertNotNil(Paths.unwritable(dir))
        XCTAssertNotNil(Paths.unwritable(dir + "/state"))
        XCTAssertNil(Paths.unwritable(FileManager.default.temporaryDirectory.path))
    }
}

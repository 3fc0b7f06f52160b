import Foundation
import ParleyTesting
import XCTest

/// `scripts/demo.sh` runs what it just built, or nothing: a failed build must not fall through to a binary an
/// earlier build left in .build/release.
final class DemoScriptTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A copy of the script in a scratch tree whose `swift` fails (or succeeds) and whose stale
    /// .build/release/parley leaves a mark when it runs.
    func runDemo(swiftExits status: Int) throws -> (status: Int32, err: String, ranStaleBinary: Bool) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-demo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        for sub in ["scripts", "bin", ".build/release"] { try fm.createDirectory(atPath: "\(dir)/\(sub)", withIntermediateDirectories: true) }
        try fm.copyItem(atPath: "\(Self.root)/scripts/demo.sh", toPath: "\(dir)/scripts/demo.sh")
        func script(_ path: String, _ body: String) throws {
            try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertEqual(chmod(path, 0o755), 0)
        }
        try script("\(dir)/scripts/install-deps.sh", "exit 0")
        try script("\(dir)/bin/swift", "echo 'error: injected build failure' >&2; exit \(status)")
        try script("\(dir)/.build/release/parley", "touch \"$(dirname \"$0\")/ran\"")
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = "\(dir)/bin:" + (env["PATH"] ?? "/usr/bin:/bin")
        let r = try shell(["/bin/bash", "\(dir)/scripts/demo.sh"], env: env, timeout: 30)
        return (r.status, r.err, fm.fileExists(atPath: "\(dir)/.build/release/ran"))
    }

    func testAFailedBuildStopsTheDemo() throws {
        let r = try runDemo(swiftExits: 1)
        XCTAssertNotEqual(r.status, 0)
        XCTAssertFalse(r.ranStaleBinary, "the binary an earlier build left must not run")
        XCTAssertTrue(r.err.contains("injected build failure"), r.err)
        XCTAssertTrue(r.err.contains("the build failed"), r.err)
    }

    func testABuildThatSucceedsRunsTheDemo() throws {
        let r = try runDemo(swiftExits: 0)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.ranStaleBinary, "what was built runs")
    }
}

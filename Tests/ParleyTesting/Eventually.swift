import Foundation
import XCTest

/// Waits until `condition` holds, checking every 10 ms, for at most `timeout` seconds: a wait for a condition
/// with a deadline, never a fixed sleep before an assertion. Returns whether it came true (and fails the test
/// with `what` when it did not).
@discardableResult
public func eventually(
    timeout: Double = 10, _ what: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line,
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    if try condition() { return true }
    XCTFail("timed out after \(timeout) s waiting for \(what())", file: file, line: line)
    return false
}

/// The same from async code, without blocking a cooperative thread.
@discardableResult
public func eventually(
    timeout: Double = 10, _ what: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    if try await condition() { return true }
    XCTFail("timed out after \(timeout) s waiting for \(what())", file: file, line: line)
    return false
}

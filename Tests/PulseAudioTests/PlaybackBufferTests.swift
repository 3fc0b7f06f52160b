import XCTest
@testable import PulseAudio

final class PlaybackBufferTests: XCTestCase {
    func testFIFOAcrossChunkBoundaries() {
        var b = PlaybackBuffer(capacity: 100)
        b.append([1, 2, 3], at: 10)
        b.append([4, 5], at: 20)
        var t = b.take(upTo: 2)
        XCTAssertEqual(t.samples, [1, 2])
        XCTAssertEqual(t.enqueuedAt, 10)
        t = b.take(upTo: 2)
        XCTAssertEqual(t.samples, [3, 4])
        XCTAssertNil(t.enqueuedAt, "starts mid-chunk")
        t = b.take(upTo: 10)
        XCTAssertEqual(t.samples, [5])
        XCTAssertTrue(b.isEmpty)
        XCTAssertEqual(b.take(upTo: 10).samples, [])
    }

    func testAReplyOf30SecondsDeliveredAtOnceIsKeptWhole() {
        var b = PlaybackBuffer(seconds: 180)
        let piece = [Int16](repeating: 7, count: 24_000 / 50)  // 20 ms
        for _ in 0..<(30 * 50) { b.append(piece) }
        XCTAssertEqual(b.count, 30 * 24_000)
        XCTAssertEqual(b.droppedSamples, 0)
        var total = 0
        while !b.isEmpty { total += b.take(upTo: 240).samples.count }
        XCTAssertEqual(total, 30 * 24_000)
    }

    func testOverflowDropsTheOldestAndCounts() {
        var b = PlaybackBuffer(capacity: 5)
        b.append([1, 2, 3])
        XCTAssertEqual(b.append([4, 5, 6, 7]), 2)
        XCTAssertEqual(b.count, 5)
        XCTAssertEqual(b.droppedSamples, 2)
        XCTAssertEqual(b.take(upTo: 10).samples, [3, 4, 5, 6, 7])
        XCTAssertEqual(b.highWaterMark, 5)
        b.append(Array(1...8))
        XCTAssertEqual(b.take(upTo: 10).samples, [4, 5, 6, 7, 8])
    }

    func testRemoveAllEmpties() {
        var b = PlaybackBuffer(capacity: 100)
        b.append([1, 2, 3])
        _ = b.take(upTo: 1)
        b.removeAll()
        XCTAssertTrue(b.isEmpty)
        XCTAssertEqual(b.count, 0)
        b.append([9])
        XCTAssertEqual(b.take(upTo: 5).samples, [9])
    }

    func testManySmallChunksStayCheap() {
        var b = PlaybackBuffer(capacity: 1_000_000)
        for i in 0..<10_000 { b.append([Int16(truncatingIfNeeded: i)]) }
        var got: [Int16] = []
        while !b.isEmpty { got += b.take(upTo: 7).samples }
        XCTAssertEqual(got.count, 10_000)
        XCTAssertEqual(got.last, Int16(truncatingIfNeeded: 9_999))
    }
}

import Foundation
import XCTest

/// `parley simulate --port 0 …` as a child process, with the port it bound (read from its banner).
public final class SimulatorProcess {
    public let process = Process()
    public let port: Int
    public var url: String { "ws://127.0.0.1:\(port)" }

    public init(_ arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: Binaries.parley)
        process.arguments = ["simulate", "--port", "0"] + arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var banner = Data()
        let deadline = Date().addingTimeInterval(15)
        while !String(decoding: banner, as: UTF8.self).contains("\n"), Date() < deadline {
            banner.append(err.fileHandleForReading.availableData)
        }
        let text = String(decoding: banner, as: UTF8.self)
        guard let r = text.range(of: "ws://127.0.0.1:"), let port = Int(text[r.upperBound...].prefix { $0.isNumber }) else {
            process.terminate()
            process.waitUntilExit()
            throw XCTSkip("parley simulate did not start: \(text)")
        }
        self.port = port
    }

    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

import Foundation
import XCTest

/// A test in a fresh directory with no Google credentials anywhere it looks: no gcloud, no metadata server,
/// no ADC file.
open class NoCredentialsTestCase: XCTestCase {
    package var dir: String!

    override open func setUp() {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-access-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override open func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// The environment with nothing to find, and `extra`.
    package func isolated(_ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": dir, "PATH": dir, "CLOUDSDK_CONFIG": dir + "/gcloud", "GCE_METADATA_HOST": "127.0.0.1:1"].merging(extra) { $1 }
    }
}

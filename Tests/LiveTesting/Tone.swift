import Foundation

/// 16 kHz s16le mono: a tone (voice-loud) or silence.
package func pcm16k(milliseconds: Int, frequency: Double = 220, amplitude: Double = 0.3) -> Data {
    let n = 16 * milliseconds
    var data = Data(capacity: n * 2)
    for i in 0..<n {
        let v = Int16(amplitude * 32767 * sin(2 * Double.pi * frequency * Double(i) / 16_000))
        withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) }
    }
    return data
}

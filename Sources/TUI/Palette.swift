/// The xterm 256-colour palette, for mapping RGB to 256 and 256 to 16 or 8 colours.
public enum Palette {
    static let base16: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]
    static let cubeLevels = [0, 95, 135, 175, 215, 255]

    /// True for entries that look black (so a background in them vanishes on a dark terminal).
    public static func isNearBlack(_ i: UInt8) -> Bool {
        let c = rgb(i)
        return c.0 + c.1 + c.2 < 60
    }

    /// RGB of palette entry `i`.
    public static func rgb(_ i: UInt8) -> (Int, Int, Int) {
        let i = Int(i)
        if i < 16 { return base16[i] }
        if i >= 232 { let v = 8 + (i - 232) * 10; return (v, v, v) }
        let c = i - 16
        return (cubeLevels[c / 36], cubeLevels[(c / 6) % 6], cubeLevels[c % 6])
    }

    static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let dr = a.0 - b.0, dg = a.1 - b.1, db = a.2 - b.2
        return 2 * dr * dr + 4 * dg * dg + 3 * db * db
    }

    /// The nearest entry of the 256 palette (cube and grey ramp only, as their RGB are fixed) to an RGB colour.
    public static func nearest256(r: Int, g: Int, b: Int) -> UInt8 {
        var best = 16, bestD = Int.max
        for i in 16..<256 {
            let d = distance(rgb(UInt8(i)), (r, g, b))
            if d < bestD { bestD = d; best = i }
        }
        return UInt8(best)
    }

    /// The nearest of the first `count` (8 or 16) palette entries.
    public static func nearest(_ i: UInt8, within count: Int) -> UInt8 {
        if Int(i) < count { return i }
        let c = rgb(i)
        // Greys go to greys (black, grey, white), never to a colour that happens to be closer.
        let candidates = c.0 == c.1 && c.1 == c.2 ? (count >= 16 ? [0, 8, 7, 15] : [0, 7]) : Array(0..<count)
        var best = 0, bestD = Int.max
        for j in candidates {
            let d = distance(base16[j], c)
            if d < bestD { bestD = d; best = j }
        }
        return UInt8(best)
    }
}

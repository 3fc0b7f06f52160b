/// Turns the bytes a terminal sends into `InputEvent`s. Pure: feed it bytes as `read(0, …)` returns them.
///
/// Handles UTF-8 split across reads, legacy (xterm) and kitty (`CSI … u`) key encodings with press / repeat /
/// release, bracketed paste as one event, and the replies to `CSI ? u` and `CSI c`. A lone Esc is ambiguous
/// until `escapeTimeout` passes without more bytes: call `flush(now:)` at `deadline`.
public struct KeyDecoder: Sendable {
    /// Seconds to wait after an incomplete escape sequence before taking the Esc as a key.
    public var escapeTimeout: Double
    private var buffer: [UInt8] = []
    private var pendingSince: Double?
    private var pasteBytes: [UInt8]?

    public init(escapeTimeout: Double = 0.05) { self.escapeTimeout = escapeTimeout }

    /// When `flush(now:)` must be called if no more bytes arrive (nil: nothing pending).
    public var deadline: Double? {
        guard pasteBytes == nil, !buffer.isEmpty, let t = pendingSince else { return nil }
        return t + escapeTimeout
    }

    /// True while a bracketed paste has started but not ended.
    public var isInPaste: Bool { pasteBytes != nil }

    /// Decodes newly read bytes.
    public mutating func feed(_ bytes: some Sequence<UInt8>, now: Double) -> [InputEvent] {
        buffer.append(contentsOf: bytes)
        let out = decode(force: false)
        // The timeout runs from the latest byte, so a sequence split by a slow link still completes.
        pendingSince = buffer.isEmpty || pasteBytes != nil ? nil : now
        return out
    }

    /// Resolves an incomplete sequence once the Esc timeout has passed (a lone Esc becomes the Esc key).
    public mutating func flush(now: Double) -> [InputEvent] {
        guard let d = deadline, now >= d else { return [] }
        let out = decode(force: true)
        pendingSince = buffer.isEmpty ? nil : now
        return out
    }

    private mutating func decode(force: Bool) -> [InputEvent] {
        var out: [InputEvent] = []
        var i = 0
        while i < buffer.count {
            if pasteBytes != nil {
                let end: [UInt8] = [0x1b, 0x5b, 0x32, 0x30, 0x31, 0x7e]  // ESC [ 2 0 1 ~
                if let r = find(end, in: buffer, from: i) {
                    pasteBytes?.append(contentsOf: buffer[i..<r])
                    let text = String(decoding: pasteBytes ?? [], as: UTF8.self)
                        .replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
                    out.append(.paste(text))
                    pasteBytes = nil
                    i = r + end.count
                    continue
                }
                // Keep a possible partial terminator in the buffer.
                let keep = min(end.count - 1, buffer.count - i)
                pasteBytes?.append(contentsOf: buffer[i..<(buffer.count - keep)])
                i = buffer.count - keep
                break
            }
            switch parse(at: i, force: force) {
            case .incomplete:
                buffer.removeFirst(i)
                return out
            case .consumed(let n, let event):
                if let event { out.append(event) }
                i += n
            case .pasteStart(let n):
                pasteBytes = []
                i += n
            }
        }
        buffer.removeFirst(i)
        return out
    }

    private enum Step { case incomplete, consumed(Int, InputEvent?), pasteStart(Int) }

    private func parse(at i: Int, force: Bool) -> Step {
        let b = buffer[i]
        if b == 0x1b {
            guard i + 1 < buffer.count else { return force ? .consumed(1, .key(KeyEvent(.escape))) : .incomplete }
            let n = buffer[i + 1]
            if n == 0x5b { return parseCSI(at: i, force: force) }
            if n == 0x4f {  // SS3
                guard i + 2 < buffer.count else { return force ? .consumed(2, .key(KeyEvent(.character("O"), .alt))) : .incomplete }
                let key: Key?
                switch buffer[i + 2] {
                case 0x41: key = .up
                case 0x42: key = .down
                case 0x43: key = .right
                case 0x44: key = .left
                case 0x48: key = .home
                case 0x46: key = .end
                case 0x50: key = .function(1)
                case 0x51: key = .function(2)
                case 0x52: key = .function(3)
                case 0x53: key = .function(4)
                case 0x4d: key = .enter
                default: key = nil
                }
                return .consumed(3, key.map { .key(KeyEvent($0)) })
            }
            if n == 0x1b { return .consumed(1, .key(KeyEvent(.escape))) }
            // Alt + key.
            switch parsePlain(at: i + 1, force: force) {
            case .incomplete: return .incomplete
            case .consumed(let len, let ev):
                if case .key(var k)? = ev { k.modifiers.insert(.alt); return .consumed(len + 1, .key(k)) }
                return .consumed(len + 1, ev)
            case .pasteStart: return .incomplete
            }
        }
        return parsePlain(at: i, force: force)
    }

    private func parsePlain(at i: Int, force: Bool) -> Step {
        let b = buffer[i]
        switch b {
        case 0x0d, 0x0a: return .consumed(1, .key(KeyEvent(.enter)))
        case 0x09: return .consumed(1, .key(KeyEvent(.tab)))
        case 0x7f, 0x08: return .consumed(1, .key(KeyEvent(.backspace)))
        case 0x00: return .consumed(1, .key(KeyEvent(.character(" "), .control)))
        case 0x1b: return .consumed(1, .key(KeyEvent(.escape)))
        case 0x01...0x1a: return .consumed(1, .key(KeyEvent(.character(Character(Unicode.Scalar(b + 0x60))), .control)))
        case 0x1c...0x1f: return .consumed(1, .key(KeyEvent(.character(Character(Unicode.Scalar(b + 0x40))), .control)))
        case 0x20...0x7e: return .consumed(1, .key(KeyEvent(.character(Character(Unicode.Scalar(b))))))
        default: break
        }
        let len: Int
        switch b {
        case 0xc2...0xdf: len = 2
        case 0xe0...0xef: len = 3
        case 0xf0...0xf4: len = 4
        default: return .consumed(1, .key(KeyEvent(.character("\u{fffd}"))))
        }
        var have = 1
        while have < len, i + have < buffer.count {
            guard buffer[i + have] & 0xc0 == 0x80 else { return .consumed(have, .key(KeyEvent(.character("\u{fffd}")))) }
            have += 1
        }
        if have < len { return force ? .consumed(have, .key(KeyEvent(.character("\u{fffd}")))) : .incomplete }
        let s = String(decoding: buffer[i..<(i + len)], as: UTF8.self)
        return .consumed(len, s.first.map { .key(KeyEvent(.character($0))) })
    }

    private func parseCSI(at i: Int, force: Bool) -> Step {
        var j = i + 2
        while j < buffer.count, (0x20...0x3f).contains(buffer[j]) { j += 1 }
        guard j < buffer.count else { return force ? .consumed(2, .key(KeyEvent(.character("["), .alt))) : .incomplete }
        let final = buffer[j]
        let len = j - i + 1
        guard (0x40...0x7e).contains(final) else { return .consumed(j - i, nil) }  // malformed: drop it
        var params = String(decoding: buffer[(i + 2)..<j], as: UTF8.self)
        var prefix: Character?
        if let f = params.first, "<=>?".contains(f) { prefix = f; params.removeFirst() }
        let fields = params.split(separator: ";", omittingEmptySubsequences: false).map { $0.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) } }
        func field(_ f: Int, _ s: Int = 0) -> Int? { f < fields.count && s < fields[f].count ? fields[f][s] : nil }
        let mods = Modifiers(encoded: field(1) ?? 1)
        let kind: KeyEventKind = field(1, 1) == 2 ? .repeat : field(1, 1) == 3 ? .release : .press
        func key(_ k: Key) -> Step { .consumed(len, .key(KeyEvent(k, mods, kind: kind))) }

        switch (prefix, final) {
        case ("?", 0x75): return .consumed(len, .kittyFlags(field(0) ?? 0))
        case ("?", 0x63): return .consumed(len, .deviceAttributes)
        case (nil, 0x75): return .consumed(len, kittyKey(fields: fields, params: params, mods: mods, kind: kind))
        case (nil, 0x7e):
            switch field(0) ?? 0 {
            case 27:
                // xterm modifyOtherKeys (also tmux extended-keys): CSI 27 ; mods ; code ~
                guard let code = field(2), let scalar = Unicode.Scalar(code) else { return .consumed(len, nil) }
                let k: Key = code == 13 ? .enter : code == 9 ? .tab : code == 127 || code == 8 ? .backspace : code == 27 ? .escape : .character(Character(scalar))
                return .consumed(len, .key(KeyEvent(k, mods, kind: kind)))
            case 200: return .pasteStart(len)
            case 201: return .consumed(len, nil)
            case 1, 7: return key(.home)
            case 4, 8: return key(.end)
            case 2: return key(.insert)
            case 3: return key(.delete)
            case 5: return key(.pageUp)
            case 6: return key(.pageDown)
            case let n where (11...15).contains(n): return key(.function(n - 10))
            case let n where (17...21).contains(n): return key(.function(n - 11))
            case let n where (23...24).contains(n): return key(.function(n - 12))
            default: return .consumed(len, nil)
            }
        case (nil, 0x41): return key(.up)
        case (nil, 0x42): return key(.down)
        case (nil, 0x43): return key(.right)
        case (nil, 0x44): return key(.left)
        case (nil, 0x48): return key(.home)
        case (nil, 0x46): return key(.end)
        case (nil, 0x50): return key(.function(1))
        case (nil, 0x51): return key(.function(2))
        case (nil, 0x52): return key(.function(3))
        case (nil, 0x53): return key(.function(4))
        case (nil, 0x5a): return .consumed(len, .key(KeyEvent(.tab, .shift, kind: kind)))
        case (nil, 0x49) where params.isEmpty: return .consumed(len, .focus(true))
        case (nil, 0x4f) where params.isEmpty: return .consumed(len, .focus(false))
        default: return .consumed(len, nil)
        }
    }

    private static let shiftedUS: [Character: Character] = [
        "`": "~", "1": "!", "2": "@", "3": "#", "4": "$", "5": "%", "6": "^", "7": "&", "8": "*", "9": "(", "0": ")",
        "-": "_", "=": "+", "[": "{", "]": "}", "\\": "|", ";": ":", "'": "\"", ",": "<", ".": ">", "/": "?",
    ]

    private func kittyKey(fields: [[Int?]], params: String, mods: Modifiers, kind: KeyEventKind) -> InputEvent? {
        guard let code = fields.first?.first ?? nil else { return nil }
        var mods = mods
        let k: Key
        switch code {
        case 13: k = .enter
        case 9: k = .tab
        case 127, 8: k = .backspace
        case 27: k = .escape
        case 57399...57408: k = .character(Character(Unicode.Scalar(UInt8(48 + code - 57399))))  // keypad digits
        case 57409...57415, 57417...57426:
            let keypad: [Int: Key] = [57409: .character("."), 57410: .character("/"), 57411: .character("*"), 57412: .character("-"),
                                      57413: .character("+"), 57414: .enter, 57415: .character("="), 57417: .left, 57418: .right,
                                      57419: .up, 57420: .down, 57421: .pageUp, 57422: .pageDown, 57423: .home, 57424: .end,
                                      57425: .insert, 57426: .delete]
            k = keypad[code] ?? .other(code)
        case 57344...63743: k = .other(code)  // kitty's other private-use keys (media, bare modifiers)
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            var c = Character(scalar)
            // Flag 16 gives the text the key produces; without it, shift US-ASCII keys ourselves.
            if fields.count > 2, let t = fields[2].compactMap({ $0 }).first, let s = Unicode.Scalar(t) {
                c = Character(s); mods.remove(.shift)
            } else if mods.contains(.shift), let shiftedCode = fields.first.flatMap({ $0.count > 1 ? $0[1] : nil }), let s = Unicode.Scalar(shiftedCode) {
                c = Character(s); mods.remove(.shift)
            } else if mods.contains(.shift), c.isASCII {
                if c.isLetter { c = Character(c.uppercased()); mods.remove(.shift) } else if let s = Self.shiftedUS[c] { c = s; mods.remove(.shift) }
            } else if mods.contains(.shift), c.isLetter, String(c).uppercased().count == 1, let u = String(c).uppercased().first {
                c = u; mods.remove(.shift)
            }
            k = .character(c)
        }
        return .key(KeyEvent(k, mods, kind: kind))
    }

    private func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}

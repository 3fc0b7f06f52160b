import Foundation
import Live

/// What the simulated model says: deterministic answers derived from the user's words, and the tool calls a
/// user turn asks for. Every reply names its turn number, so a resumed conversation can be proven to continue.
enum ReplyScript {
    /// One function call the user's words ask for.
    struct Call: Sendable, Equatable {
        var name: String
        var args: JSONValue
    }

    /// How the model reacts to a user turn.
    enum Intent: Sendable, Equatable {
        /// Call these tools, wait for their responses, then speak.
        case callTools([Call])
        /// Speak at once (`text` has no turn suffix yet).
        case speak(String)
    }

    /// Decides how to answer `userText`, given the function names the client declared.
    static func intent(for userText: String, declaredTools: Set<String>) -> Intent {
        let scripted = scriptedCalls(in: userText)
        if !scripted.isEmpty {
            let known = scripted.filter { declaredTools.contains($0.name) }
            let unknown = scripted.filter { !declaredTools.contains($0.name) }.map(\.name)
            if !known.isEmpty { return .callTools(known) }
            return .speak("I can't call \(unknown.joined(separator: " or ")), it isn't one of my tools.")
        }
        if asksForTime(userText) {
            if declaredTools.contains("get_current_time") {
                return .callTools([Call(name: "get_current_time", args: .object([:]))])
            }
            return .speak("I can't check the clock from here, sorry.")
        }
        return .speak(answer(to: userText))
    }

    /// The full reply text for a turn, opening as the system instruction asks (see ``opening(in:)``).
    static func reply(_ text: String, turn: Int, instruction: String? = nil) -> String {
        let body = "\(text) That's turn \(turn) of our chat."
        return opening(in: instruction).map { "\($0) \(body)" } ?? body
    }

    /// The one kind of instruction the simulated model can be seen to follow: `Begin every reply with "…"`
    /// (or `Start every reply with`, any case, straight or curly quotes). A real model honours it too, so a test
    /// or a demo persona can tell that a new instruction took effect.
    static func opening(in instruction: String?) -> String? {
        guard let instruction else { return nil }
        let lower = instruction.lowercased()
        for lead in ["begin every reply with ", "start every reply with "] {
            guard let r = lower.range(of: lead) else { continue }
            let rest = instruction[r.upperBound...].drop { $0 == " " }
            guard let open = rest.first, "\"“'‘".contains(open) else { continue }
            let close: Character = open == "“" ? "”" : open == "‘" ? "’" : open
            let body = rest.dropFirst()
            guard let end = body.firstIndex(of: close) else { continue }
            let text = body[..<end].trimmingCharacters(in: .whitespaces)
            if !text.isEmpty { return text }
        }
        return nil
    }

    /// What the model says once every tool call of the turn has its response.
    static func afterTools(_ results: [(call: Call, response: JSONValue)]) -> String {
        results.map { result in
            let r = result.response
            if let error = r["error"] {
                return "\(result.call.name) failed: \(error.stringValue ?? error.compactText)."
            }
            if result.call.name == "get_current_time" {
                return "It's \(firstString(in: r) ?? r.compactText) right now."
            }
            return "\(result.call.name) says \(firstString(in: r) ?? r.compactText)."
        }.joined(separator: " ")
    }

    static func answer(to userText: String) -> String {
        let words = userText.split(whereSeparator: \.isWhitespace)
        guard let first = words.first else { return "I'm listening." }
        let greeting = first.lowercased().trimmingCharacters(in: .punctuationCharacters)
        if ["hello", "hi", "hey"].contains(greeting) { return "Hello! Yes, I can hear you clearly." }
        var said = words.prefix(12).joined(separator: " ").trimmingCharacters(in: .punctuationCharacters)
        if words.count > 12 { said += "…" }
        return "You said: \(said)."
    }

    static func asksForTime(_ text: String) -> Bool {
        let lower = text.lowercased()
        if lower.contains("what time") { return true }
        return lower.split(whereSeparator: { !$0.isLetter }).contains("time")
    }

    /// Finds `call NAME {json}` (the JSON optional) anywhere in the text, e.g.
    /// `call read_file {"path":"a.txt"} and call get_current_time`.
    static func scriptedCalls(in text: String) -> [Call] {
        var calls: [Call] = []
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let atWordStart = i == 0 || chars[i - 1].isWhitespace
            guard atWordStart, matches(chars, at: i, "call ") else {
                i += 1
                continue
            }
            var j = i + 5
            while j < chars.count, chars[j] == " " { j += 1 }
            let nameStart = j
            while j < chars.count, chars[j].isLetter || chars[j].isNumber || "_-.".contains(chars[j]) { j += 1 }
            guard j > nameStart else {
                i += 1
                continue
            }
            let name = String(chars[nameStart..<j])
            var k = j
            while k < chars.count, chars[k] == " " { k += 1 }
            var args = JSONValue.object([:])
            if k < chars.count, chars[k] == "{", let end = closingBrace(chars, from: k) {
                let json = String(chars[k...end])
                if let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)), value.objectValue != nil {
                    args = value
                }
                j = end + 1
            }
            calls.append(Call(name: name, args: args))
            i = j
        }
        return calls
    }

    private static func matches(_ chars: [Character], at i: Int, _ word: String) -> Bool {
        var k = i
        for c in word {
            guard k < chars.count, chars[k].lowercased() == String(c) else { return false }
            k += 1
        }
        return true
    }

    /// The index of the `}` that closes the `{` at `start`, skipping braces inside JSON strings.
    private static func closingBrace(_ chars: [Character], from start: Int) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        var i = start
        while i < chars.count {
            let c = chars[i]
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "{" {
                depth += 1
            } else if c == "}" {
                depth -= 1
                if depth == 0 { return i }
            }
            i += 1
        }
        return nil
    }

    private static func firstString(in value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .object(let o):
            for key in ["time", "current_time", "currentTime", "result", "output", "text"] {
                if let s = o[key]?.stringValue { return s }
            }
            return o.keys.sorted().lazy.compactMap { o[$0]?.stringValue }.first
        default: return nil
        }
    }
}

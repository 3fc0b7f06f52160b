import ArgumentParser
import XCTest

@testable import App

/// Help text reflows to the terminal: no sentence in it carries a hard line break that the help formatter
/// would wrap a second time (`parley ask --help` said "asks again if its question had" / "no answer yet").
final class HelpTextTests: XCTestCase {
    static let commands: [any ParsableCommand.Type] = [Parley.self] + Parley.configuration.subcommands

    func testEveryCommandsHelpReflowsWithoutRaggedLines() {
        for command in Self.commands {
            // So wide that the formatter wraps nothing: a line continued on the next is a break in the text.
            let help = Parley.helpMessage(for: command, columns: 10_000)
            XCTAssertEqual(Self.hardBreaks(help), [], "\(command._commandName):\n\(help)")
        }
        // What a person sees: the sentence that broke in two at 80 columns is whole.
        let ask = Parley.helpMessage(for: Ask.self, columns: 80).replacingOccurrences(of: "\n", with: " ")
        XCTAssertTrue(ask.contains("(and asks again if its question had no answer yet)"), ask)
    }

    /// Lines the next line continues (same paragraph, same column): where the text itself breaks a sentence.
    static func hardBreaks(_ help: String) -> [String] {
        let lines = help.components(separatedBy: "\n")
        var found: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) {
            guard !line.allSatisfy(\.isWhitespace), !next.allSatisfy(\.isWhitespace) else { continue }
            // A new entry starts at its own indentation; a name alone on its line has its help below it.
            let indent = next.prefix(while: { $0 == " " }).count
            let entry = next.dropFirst(indent).first.map { $0 == "-" || $0 == "<" } ?? false
            if indent == textColumn(line), !entry { found.append(line) }
        }
        return found
    }

    /// Where a line's text starts: after its indentation, or after the gap between an option's name and its help.
    static func textColumn(_ line: String) -> Int {
        let chars = Array(line)
        var i = chars.prefix { $0 == " " }.count
        let indent = i
        while i + 1 < chars.count {
            if chars[i] == " ", chars[i + 1] == " " {
                var j = i
                while j < chars.count, chars[j] == " " { j += 1 }
                if j < chars.count { return j }
            }
            i += 1
        }
        return indent
    }

    func testTheCheckFindsAHardBreakAndNothingElse() {
        let broken = "Like the full-screen app, ask reconnects (and asks again if its question had\nno answer yet), waits.\n"
        XCTAssertEqual(Self.hardBreaks(broken), ["Like the full-screen app, ask reconnects (and asks again if its question had"])
        let entries = "OPTIONS:\n  --audio <in.wav>        Ask with speech.\n  --frames <talking|always>\n                          When frames go out.\n"
            + "  --close-after-turns <n> With --close-code: close.\n  --refuse-handles        Refuse.\n"
        XCTAssertEqual(Self.hardBreaks(entries), [])
    }
}

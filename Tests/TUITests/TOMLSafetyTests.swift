import XCTest

@testable import TUI

/// Theme TOML that made toml++ abort (an assertion in its parser; undefined behaviour in a release build), found
/// by `scripts/fuzz.sh theme`: each is now a syntax error with its line and column.
final class TOMLSafetyTests: XCTestCase {
    func testTableNamesThatTomlPlusPlusAssumesAwayAreSyntaxErrors() {
        for (text, line, column) in [("[é]\n", 1, 2), ("name = \"x\"\n[ =]\n", 2, 3), ("[[\u{FFFD}]]", 1, 3), ("a = 1\n[\n", 2, 2),
                                     ("\u{FEFF}[#]", 1, 2)] {
            guard case .failure(.syntax(let file, let l, let c, let message)) = ThemeParser.parse(text: text, file: "t.toml") else {
                XCTFail("expected a syntax error for \(text.debugDescription)")
                continue
            }
            XCTAssertEqual([file, "\(l):\(c)"], ["t.toml", "\(line):\(column)"], text.debugDescription)
            XCTAssertTrue(message.contains("table name"), message)
        }
    }

    func testAClosingBraceWhereAnArrayExpectsAValueIsASyntaxError() {
        for (text, line) in [("a = [}]", 1), ("a = [1, }]", 1), ("a = [\n # c\n }]", 3), ("r = { s = [ }", 1), ("s=[}", 1)] {
            guard case .failure(.syntax(_, let l, _, let message)) = ThemeParser.parse(text: text, file: "t.toml") else {
                XCTFail("expected a syntax error for \(text.debugDescription)")
                continue
            }
            XCTAssertEqual(l, line, text.debugDescription)
            XCTAssertTrue(message.contains("saw }"), message)
        }
    }

    func testValidTOMLWithBracketsInStringsCommentsAndArraysIsLeftToTheParser() {
        let text = """
            name = "x [é] }"
            # [é] a comment
            notes = '''
            [é]
            a = [}]
            '''
            list = [
              [1, 2], # [=
              ["}"],
            ]
            [roles.userText]
            fg = "red"
            ["quoted name"]
            k = { a = [1, {b = 2}] }
            """
        XCTAssertNil(TOMLSafety.problem(in: text))
        XCTAssertNil(TOMLSafety.problem(in: Theme.defaultFileText))
    }
}

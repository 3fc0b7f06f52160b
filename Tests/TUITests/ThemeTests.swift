import Foundation
import XCTest
@testable import TUI

final class ThemeTests: XCTestCase {
    static let themesDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("themes").path

    func testShippedThemesParseAndCoverEveryRole() throws {
        for name in ["default", "light", "high-contrast", "mono"] {
            let path = Self.themesDir + "/" + name + ".toml"
            let theme = try ThemeLoader.loadFile(path).get()
            XCTAssertEqual(theme.name, name)
            for role in Role.allCases { XCTAssertNotNil(theme.styles[role], "\(name) lacks \(role)") }
        }
        let mono = try ThemeLoader.loadFile(Self.themesDir + "/mono.toml").get()
        let allPlainColours = Role.allCases.filter { $0 != .normal }.allSatisfy { mono.style($0).fg == .default && mono.style($0).bg == .default }
        XCTAssertTrue(allPlainColours, "mono uses attributes only")
    }

    func testBuiltInDefaultMatchesTheFile() throws {
        let file = try String(contentsOfFile: Self.themesDir + "/default.toml", encoding: .utf8)
        XCTAssertEqual(Theme.defaultFileText, file)
        XCTAssertEqual(try ThemeParser.parse(text: file, file: "default.toml", base: nil).get(), Theme.default, "code and file agree")
        XCTAssertEqual(Theme.default.style(.userText), CellStyle(fg: .index(117)))
        XCTAssertEqual(Theme.default.style(.meterClip), CellStyle(fg: .index(231), bg: .index(160), attributes: .bold))
    }

    func testColourForms() {
        XCTAssertEqual(Color.parse("red"), .index(1))
        XCTAssertEqual(Color.parse("Bright-Blue"), .index(12))
        XCTAssertEqual(Color.parse("208"), .index(208))
        XCTAssertEqual(Color.parse("#ff0000"), .index(196))
        XCTAssertEqual(Color.parse("#808080"), .index(244))
        XCTAssertEqual(Color.parse("default"), .default)
        XCTAssertNil(Color.parse("purplish"))
        XCTAssertNil(Color.parse("256"))
        XCTAssertEqual(Palette.nearest(196, within: 16), 9)
        XCTAssertEqual(Palette.nearest(196, within: 8), 1)
        XCTAssertEqual(Palette.nearest(245, within: 8), 7, "greys stay grey")
        XCTAssertEqual(Palette.nearest(238, within: 16), 8)
        XCTAssertEqual(Palette.nearest(234, within: 8), 0)
    }

    func testBadColourNamesFileLineAndRole() {
        let text = """
        name = "bad"

        [roles]
        userText = { fg = "cyan" }
        modelText = { fg = "purplish" }
        """
        let r = ThemeParser.parse(text: text, file: "/x/bad.toml")
        guard case .failure(let e) = r else { return XCTFail("expected failure") }
        XCTAssertEqual(e, .badRole(file: "/x/bad.toml", line: 5, role: "modelText", message: #"fg = "purplish" is not a colour name, 0-255 or #rrggbb"#))
        XCTAssertEqual(e.message, #"/x/bad.toml:5: role "modelText": fg = "purplish" is not a colour name, 0-255 or #rrggbb"#)
        XCTAssertTrue(e.hint.contains("using the default theme"))
    }

    func testUnknownRoleAttributeFieldAndSyntax() {
        func err(_ t: String) -> ThemeError? { if case .failure(let e) = ThemeParser.parse(text: t, file: "t.toml") { return e }; return nil }
        XCTAssertEqual(err("[roles]\nuserTxt = { fg = 1 }")?.message.hasPrefix("t.toml:2: role \"userTxt\": unknown role"), true)
        XCTAssertEqual(err("[roles]\n\nuserText = { attrs = [\"blink\"] }"), .badRole(file: "t.toml", line: 3, role: "userText", message: "unknown attribute \"blink\""))
        XCTAssertEqual(err("[roles]\nuserText = { colour = 1 }"), .badRole(file: "t.toml", line: 2, role: "userText", message: "unknown field \"colour\" (use fg, bg, attrs)"))
        XCTAssertEqual(err("[roles]\nuserText = { fg = 300 }")?.message.hasPrefix("t.toml:2: role \"userText\": fg = 300"), true)
        XCTAssertEqual(err("[roles]\nuserText = \"red\""), .badRole(file: "t.toml", line: 2, role: "userText", message: "must be a table like { fg = \"red\" }"))
        guard case .syntax(let file, let line, _, _)? = err("name = \"x\"\n[roles\nuserText = 1") else { return XCTFail("expected syntax error") }
        XCTAssertEqual(file, "t.toml")
        XCTAssertEqual(line, 2)
    }

    func testTableFormAndInheritance() throws {
        let t = try ThemeParser.parse(text: "[roles.userText]\nfg = \"#ffffff\"\nattrs = [\"bold\", \"underline\"]\n", file: "t").get()
        XCTAssertEqual(t.style(.userText), CellStyle(fg: .index(231), attributes: [.bold, .underline]))
        XCTAssertEqual(t.style(.modelText), Theme.default.style(.modelText), "roles left out come from default")
    }

    func testLoaderSearchOrderFallbackAndErrors() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("parley-theme-\(getpid())")
        let user = tmp.appendingPathComponent("user").path
        try FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        try "name = \"light\"\n[roles]\nuserText = { fg = 1 }\n".write(toFile: user + "/light.toml", atomically: true, encoding: .utf8)
        try "[roles]\nuserText = { fg = \"nope\" }\n".write(toFile: user + "/broken.toml", atomically: true, encoding: .utf8)
        let loader = ThemeLoader(searchDirectories: [user, Self.themesDir])

        XCTAssertEqual(loader.load("light").theme.style(.userText).fg, .index(1), "user directory wins")
        XCTAssertEqual(loader.load("mono").theme.name, "mono")
        let broken = loader.load("broken")
        XCTAssertEqual(broken.theme, Theme.default)
        XCTAssertEqual(broken.error, .badRole(file: user + "/broken.toml", line: 2, role: "userText", message: #"fg = "nope" is not a colour name, 0-255 or #rrggbb"#))
        let missing = loader.load("nosuch")
        XCTAssertEqual(missing.theme, Theme.default)
        XCTAssertEqual(missing.error, .notFound(name: "nosuch", searched: [user, Self.themesDir]))
        XCTAssertEqual(ThemeLoader(searchDirectories: []).load("default").theme, Theme.default, "works with no themes directory")
        XCTAssertEqual(Set(loader.availableThemes()).isSuperset(of: ["default", "light", "high-contrast", "mono", "broken"]), true)
    }

    func testBundledDirectoryFoundFromBuildProducts() {
        let exe = Self.themesDir.replacingOccurrences(of: "/themes", with: "/.build/debug/TUIDemo")
        XCTAssertEqual(ThemeLoader.bundledThemesDirectory(executablePath: exe), Self.themesDir)
    }

    func testThemeStylesReachTheGrid() throws {
        let s = Fixtures.state()
        let light = try ThemeLoader.loadFile(Self.themesDir + "/light.toml").get()
        let (g, _) = Fixtures.render(s, rows: 24, columns: 80, theme: light)
        XCTAssertEqual(g.style(row: 2, column: 8), light.style(.userText), "user text in the user role's style")
        XCTAssertEqual(g.style(row: 23, column: 1), light.style(.statusKey))
        XCTAssertEqual(g.style(row: 23, column: 79), light.style(.statusBar))
    }
}

final class KeyMapTests: XCTestCase {
    func testDefaults() {
        let km = KeyMap.default
        XCTAssertEqual(km.command(for: .char(" ")), .pushToTalk)
        XCTAssertEqual(km.command(for: .char("v")), .voiceMenu)
        XCTAssertEqual(km.command(for: .char("m")), .toggleMicMode)
        XCTAssertEqual(km.command(for: KeyEvent(.tab)), .textInput)
        XCTAssertEqual(km.command(for: .char("i")), .textInput)
        XCTAssertEqual(km.command(for: .char("t")), .toolLogFocus)
        XCTAssertEqual(km.command(for: .char("?")), .help)
        XCTAssertEqual(km.command(for: KeyEvent(.character("?"), .shift)), .help, "shift is part of the character")
        XCTAssertEqual(km.command(for: .char("q")), .quit)
        XCTAssertEqual(km.command(for: .ctrl("c")), .interruptOrQuit)
        XCTAssertEqual(km.command(for: KeyEvent(.pageUp)), .scrollPageUp)
        XCTAssertEqual(km.command(for: KeyEvent(.end)), .scrollBottom)
        XCTAssertEqual(km.command(for: .char("c")), .toggleSharing, "plain c is not Ctrl-C")
        XCTAssertEqual(km.command(for: .ctrl("o")), .attachImage)
        XCTAssertNil(km.command(for: .char("z")))
        XCTAssertNil(km.command(for: KeyEvent(.character("v"), kind: .release)))
    }

    func testOverridesAndParsing() throws {
        let km = try KeyMap.default.overriding(["voiceMenu": ["V", "F2"], "quit": ["C-q"]]).get()
        XCTAssertEqual(km.command(for: .char("V")), .voiceMenu)
        XCTAssertEqual(km.command(for: KeyEvent(.function(2))), .voiceMenu)
        XCTAssertNil(km.command(for: .char("v")))
        XCTAssertEqual(km.command(for: .ctrl("q")), .quit)
        XCTAssertNil(km.command(for: .char("q")))
        XCTAssertEqual(KeyMap.default.overriding(["fly": ["f"]]), .failure(.unknownCommand("fly")))
        XCTAssertEqual(KeyMap.default.overriding(["quit": ["Hyper-Q"]]), .failure(.badKey(command: "quit", key: "Hyper-Q")))
        XCTAssertEqual(KeyChord(parsing: "Ctrl-C")?.description, "Ctrl-C")
        XCTAssertEqual(KeyChord(parsing: "pgup")?.description, "PgUp")
        XCTAssertEqual(KeyChord(parsing: "Space")?.description, "Space")
    }
}

@testable import Conversation
import Foundation
import Live
import TUI
import XCTest

@testable import App

/// The persona menu, applying a persona, the editor's outcome and tools on and off, on the reducer alone.
final class PersonaReducerTests: XCTestCase {
    var s = AppState(config: Config(), demo: false, audioAvailable: true, kitty: false)
    let clock = FunctionDeclaration(name: "get_current_time", description: "Now")
    let reader = FunctionDeclaration(name: "read_file", description: "Reads")

    override func setUp() {
        var config = Config()
        config.systemInstruction = "Be brief."
        config.personas = [
            Persona(name: "Pirate", system: "Talk like a pirate.", voice: "Fenrir", tools: ["get_current_time": false], greeting: "Say ahoy."),
            Persona(name: "Reader", tools: ["read_file": true]),
        ]
        s = AppState(config: config, demo: false, audioAvailable: true, kitty: false)
        s.context = ContextState(config: config, registry: registry(config))
        _ = Reducer.reduce(&s, .live(.setupComplete(resumed: false)), now: 0)
    }

    func registry(_ config: Config) -> ToolRegistry {
        ToolRegistry.builtIn(config.toolSettings(offering: config.personas))
    }

    @discardableResult
    func key(_ k: KeyEvent) -> [Effect] { Reducer.reduce(&s, .input(.key(k)), now: 1) }

    func changes(_ fx: [Effect]) -> [ContextChange] {
        fx.compactMap { if case .live(.changeContext(let c, _)) = $0 { c } else { nil } }
    }

    func functionNames(_ change: ContextChange?) -> [String]? {
        change?.tools.map { $0.flatMap { $0.functionDeclarations ?? [] }.map(\.name) }
    }

    func testTheMenuListsNoneAndEveryPersonaAndFilters() {
        key(KeyEvent(.character("p")))
        guard case .personaMenu(let menu)? = s.ui.overlay else { return XCTFail("no persona menu") }
        XCTAssertEqual(menu.voices.map(\.name), ["none", "Pirate", "Reader"])
        XCTAssertEqual(menu.current, "none")
        key(KeyEvent(.character("r"))); key(KeyEvent(.character("e")))
        guard case .personaMenu(let filtered)? = s.ui.overlay else { return XCTFail("menu closed") }
        XCTAssertEqual(filtered.selected?.name, "Reader")
        key(KeyEvent(.escape))
        XCTAssertNil(s.ui.overlay)
    }

    func testChoosingAPersonaAppliesEverythingInOneChangeAndGreetsOnceItTookEffect() throws {
        key(KeyEvent(.character("p")))
        key(KeyEvent(.character("p"))); key(KeyEvent(.character("i")))
        let fx = key(KeyEvent(.enter))
        let change = try XCTUnwrap(changes(fx).first)
        XCTAssertEqual(changes(fx).count, 1, "one step")
        XCTAssertEqual(change.systemInstruction?.text, "Talk like a pirate.")
        XCTAssertEqual(change.voice, "Fenrir")
        XCTAssertEqual(functionNames(change), [], "the clock off, nothing else was on")
        XCTAssertNil(s.ui.header.persona, "shown once it took effect")
        let after = Reducer.reduce(&s, .live(.contextChanged(change, via: .resume)), now: 2)
        XCTAssertEqual(s.ui.header.persona, "Pirate")
        XCTAssertEqual(s.ui.header.voice, "Fenrir")
        XCTAssertTrue(after.contains(.live(.sendText("Say ahoy."))), "the greeting goes after the change")
        XCTAssertEqual(s.context.pending, [])
    }

    func testGoingBackToNoneRestoresTheConfigsOwnSettings() throws {
        s.context.instruction = "Talk like a pirate."
        s.context.persona = "Pirate"
        s.context.setTools([])
        let fx = Reducer.choosePersona(&s, "none")
        let change = try XCTUnwrap(changes(fx).first)
        XCTAssertEqual(change.systemInstruction?.text, "Be brief.")
        XCTAssertEqual(functionNames(change), ["get_current_time"])
        _ = Reducer.reduce(&s, .live(.contextChanged(change, via: .contextUpdate)), now: 2)
        XCTAssertNil(s.context.persona)
    }

    func testAPersonaTheModelCannotTakeIsRefusedAndNothingChanges() {
        s.context.personas.append(Persona(name: "Deep", thinking: "high"))
        let fx = Reducer.choosePersona(&s, "Deep")
        XCTAssertEqual(changes(fx), [])
        XCTAssertEqual(s.context.instruction, "Be brief.")
        XCTAssertTrue(s.ui.transcript.entries.last?.text.contains("persona Deep: thinking = \"high\" is not accepted") == true)
    }

    func testTheEditorsOutcome() throws {
        let fx = key(KeyEvent(.character("E")))
        XCTAssertTrue(fx.contains(.editInstruction("Be brief.")))
        XCTAssertEqual(changes(Reducer.reduce(&s, .instructionEdited(.unchanged), now: 2)), [])
        XCTAssertEqual(s.ui.status, "instruction unchanged — nothing to apply")
        XCTAssertEqual(changes(Reducer.reduce(&s, .instructionEdited(.empty), now: 2)), [])
        XCTAssertEqual(s.ui.status, "the file was empty — the instruction stays as it was")
        XCTAssertEqual(changes(Reducer.reduce(&s, .instructionEdited(.failed("the editor (vi) exited with status 1")), now: 2)), [])
        XCTAssertEqual(s.ui.transcript.entries.last?.text, "the instruction was not changed: the editor (vi) exited with status 1")
        let huge = String(repeating: "word ", count: 400_000)
        XCTAssertEqual(changes(Reducer.reduce(&s, .instructionEdited(.changed(huge)), now: 2)), [], "refused before sending")
        let applied = Reducer.reduce(&s, .instructionEdited(.changed("Be very brief.")), now: 2)
        XCTAssertEqual(changes(applied), [ContextChange(instruction: "Be very brief.")])
        XCTAssertEqual(s.context.instruction, "Be very brief.")
        XCTAssertTrue(s.ui.header.instructionEdited)
    }

    func testToolsTurnOnAndOffFromThePane() throws {
        XCTAssertEqual(s.ui.toolLog.tools.map(\.name), ["get_current_time", "read_file", "google_search"])
        XCTAssertEqual(s.ui.toolLog.tools.map(\.on), [true, false, false])
        key(KeyEvent(.character("t"))); key(KeyEvent(.right)); key(KeyEvent(.down))
        let on = key(KeyEvent(.character(" ")))
        XCTAssertEqual(functionNames(changes(on).first), ["get_current_time", "read_file"])
        XCTAssertEqual(s.ui.status, "tools: read_file on")
        key(KeyEvent(.up))
        let off = key(KeyEvent(.character(" ")))
        XCTAssertEqual(functionNames(changes(off).first), ["read_file"])
        XCTAssertEqual(s.ui.toolLog.tools.map(\.on), [false, true, false])
    }

    func testACallRunningWhenItsToolIsTurnedOffFinishesAndALaterOneIsRefused() throws {
        let call = FunctionCall(id: "c1", name: "get_current_time", args: [:])
        XCTAssertTrue(Reducer.reduce(&s, .live(.toolCall([call])), now: 1).contains(.runTools([call])))
        _ = Reducer.toggleTools(&s, .toggle("get_current_time"))
        XCTAssertEqual(s.ui.toolLog.calls.first?.state, .running, "not cancelled")
        _ = Reducer.reduce(&s, .toolFinished(id: "c1", outcome: .ok, result: "{}"), now: 2)
        XCTAssertEqual(s.ui.toolLog.calls.first?.state, .ok)

        let later = FunctionCall(id: "c2", name: "get_current_time", args: [:])
        let fx = Reducer.reduce(&s, .live(.toolCall([later])), now: 3)
        XCTAssertFalse(fx.contains(.runTools([later])))
        let answers = fx.compactMap { if case .answerTools(let a) = $0 { a } else { nil } }.flatMap { $0 }
        XCTAssertEqual(answers.map(\.id), ["c2"])
        XCTAssertTrue(answers.first?.response.compactText.contains("turned the tool get_current_time off") == true)
        XCTAssertEqual(s.ui.toolLog.calls.last?.state, .error)
    }

    func testTheEditorIsVisualThenEditorThenViAndAFailureIsSaid() {
        XCTAssertEqual(InstructionEditor.command(environment: ["VISUAL": "nvim", "EDITOR": "nano"]), "nvim")
        XCTAssertEqual(InstructionEditor.command(environment: ["VISUAL": " ", "EDITOR": "nano"]), "nano")
        XCTAssertEqual(InstructionEditor.command(environment: [:]), "vi")
        let env = ["EDITOR": "ed", "TMPDIR": NSTemporaryDirectory()]
        XCTAssertEqual(InstructionEditor.edit("x", environment: env) { _, _ in .success(1 << 8) }, .failed("the editor (ed) exited with status 1"))
        XCTAssertEqual(InstructionEditor.edit("x", environment: env) { _, path in
            try? "  new text \n".write(toFile: path, atomically: false, encoding: .utf8)
            return .success(0)
        }, .changed("new text"))
        XCTAssertEqual(InstructionEditor.edit("x", environment: env) { _, path in
            try? "".write(toFile: path, atomically: false, encoding: .utf8)
            return .success(0)
        }, .empty)
    }
}

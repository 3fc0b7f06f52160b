import TUI

/// `/` searches the transcript on screen as the query is typed; Enter keeps the query and `n`/`N` step to the
/// older and newer matches, scrolling to each; Esc (or Ctrl-C in the query line) leaves the search. The status
/// line says `3/17` or that nothing matched.
extension Reducer {
    /// A key while the query line is open (releases were dropped before).
    static func searchKey(_ s: inout AppState, _ k: KeyEvent) -> [Effect] {
        guard var search = s.ui.search, var editor = search.editor else { return [] }
        if k == .ctrl("c") { return leaveSearch(&s) }
        switch editor.handle(k) {
        case .none:
            return []
        case .leave:
            return leaveSearch(&s)
        case .submit(let query):
            guard !query.isEmpty else { return leaveSearch(&s) }
            search.editor = nil
            s.ui.search = search
            return []
        case .edited:
            let changed = editor.text != search.query
            search.editor = editor
            guard changed else {
                s.ui.search = search
                return []
            }
            search.find(editor.text, in: s.ui.transcript)
            s.ui.search = search
            s.status = search.status.map(StatusNote.search)
            return search.currentEntry.map { [.scroll(.entry($0))] } ?? []
        }
    }

    static func runSearch(_ s: inout AppState, _ command: Command) -> [Effect] {
        switch command {
        case .search:
            // A new query line; the last query is one Up away.
            let last = s.ui.search?.query
            s.ui.search = SearchState(editor: LineEditor(history: last.map { [$0] } ?? []))
            s.status = nil
            return []
        case .searchOlder, .searchNewer:
            guard var search = s.ui.search, !search.query.isEmpty else {
                s.status = .noSearchYet
                return []
            }
            search.step(command == .searchOlder ? -1 : 1, in: s.ui.transcript)
            s.ui.search = search
            s.status = search.status.map(StatusNote.search)
            return search.currentEntry.map { [.scroll(.entry($0))] } ?? []
        default:
            return []
        }
    }

    static func leaveSearch(_ s: inout AppState) -> [Effect] {
        s.ui.search = nil
        s.status = nil
        return []
    }
}

extension Reducer {
    /// Applies `event` and then every event its effects report back, in the same pass, so an effect's result is
    /// in the state before anything else happens. `perform` carries out one effect and returns what it reports
    /// at once (parley's `EffectRunner`, TUIDemo's canned answers); `now` is read for each event.
    package static func apply(
        _ event: AppEvent, to s: inout AppState, now: () -> Double, perform: (Effect, AppState) -> [AppEvent]
    ) {
        var pending = [event]
        while !pending.isEmpty {
            for effect in reduce(&s, pending.removeFirst(), now: now()) {
                pending += perform(effect, s)
            }
        }
    }
}

import ArgumentParser

/// Command-line durations in seconds: finite, not negative, and small enough to become a `Duration` (a NaN or
/// 1e308 used to trap when converted, killing parley with SIGILL). Used as `@Option(transform: Seconds.parse)`.
enum Seconds {
    /// The longest duration accepted: about 115 days.
    static let maximum: Double = 10_000_000

    /// Parses an option value, or fails with a message that says what is accepted (exit 64).
    static func parse(_ text: String) throws -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError("\(text) is not a number of seconds (e.g. 2 or 0.5)")
        }
        guard value.isFinite else { throw ValidationError("\(text) is not a finite number of seconds (e.g. 2 or 0.5)") }
        guard value >= 0 else { throw ValidationError("\(text) seconds: a duration cannot be negative") }
        guard value <= maximum else { throw ValidationError("\(text) seconds is too long (at most \(Int(maximum)))") }
        return value
    }

    /// Whole milliseconds, for `Duration.milliseconds`; `seconds` is within `parse`'s bounds.
    static func milliseconds(_ seconds: Double) -> Int64 { Int64((min(max(seconds, 0), maximum) * 1000).rounded()) }
}

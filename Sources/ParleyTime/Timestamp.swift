#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock stamps for logs, transcripts and file names, written from the C library's calendar: Foundation's
/// date formatters load ICU's data (about 6 MB of the process's memory) for a fixed format that needs none.
public enum Timestamp {
    /// `2026-11-23T17:45:43Z`: ISO 8601 in UTC, whole seconds (what `ISO8601DateFormatter` writes).
    public static func iso8601UTC(secondsSince1970 seconds: Double) -> String {
        var t = time_t(seconds.rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        return date(tm, separator: ":") + "Z"
    }

    /// `2026-11-23T18-45-43`: local time with no colons, for file names.
    public static func localFileStamp(secondsSince1970 seconds: Double) -> String {
        var t = time_t(seconds.rounded(.down))
        var tm = tm()
        localtime_r(&t, &tm)
        return date(tm, separator: "-")
    }

    private static func date(_ tm: tm, separator: String) -> String {
        "\(pad(Int(tm.tm_year) + 1900, 4))-\(pad(Int(tm.tm_mon) + 1))-\(pad(Int(tm.tm_mday)))T"
            + "\(pad(Int(tm.tm_hour)))\(separator)\(pad(Int(tm.tm_min)))\(separator)\(pad(Int(tm.tm_sec)))"
    }

    private static func pad(_ n: Int, _ width: Int = 2) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

import Foundation

/// Notices what should make an offline session retry at once: the clock that counts through suspend getting
/// ahead of the one that does not (the machine was suspended: the lid closed), and a new default route
/// (another network). A value type fed with readings of the session's `TimeSource`, so tests drive it without
/// sleeping or touching /proc.
public struct NetworkWatch: Sendable {
    public enum Change: Sendable, Equatable {
        /// The machine slept this many seconds: a resume from suspend.
        case resumedFromSuspend(seconds: Double)
        /// The default route changed (or appeared).
        case routeChanged
    }

    /// A jump larger than this counts as a suspend.
    public var jumpThreshold: Double
    private var last: (now: Double, throughSuspend: Double, route: String?)?

    public init(jumpThreshold: Double = 5) { self.jumpThreshold = jumpThreshold }

    /// One reading: `TimeSource.now()` (stops during suspend), `TimeSource.nowThroughSuspend()`, the default
    /// route.
    public mutating func observe(now: Double, throughSuspend: Double, route: String?) -> Change? {
        defer { last = (now, throughSuspend, route) }
        guard let last else { return nil }
        let jump = (throughSuspend - last.throughSuspend) - (now - last.now)
        if jump > jumpThreshold { return .resumedFromSuspend(seconds: jump) }
        if route != last.route, route != nil { return .routeChanged }
        return nil
    }

    /// The default IPv4 route from /proc/net/route ("interface gateway"), nil when there is none.
    public static func defaultRoute(table: String) -> String? {
        for line in table.split(separator: "\n").dropFirst() {
            let f = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            if f.count > 2, f[1] == "00000000" { return "\(f[0]) \(f[2])" }
        }
        return nil
    }

    /// Reads the system's default route (Linux), nil when it cannot be read.
    public static func readDefaultRoute() -> String? {
        guard let table = try? String(contentsOfFile: "/proc/net/route", encoding: .utf8) else { return nil }
        return defaultRoute(table: table)
    }
}

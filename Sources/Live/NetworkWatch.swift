import Foundation

/// Notices what should make an offline session retry at once: the wall clock jumping ahead of the monotonic
/// clock (the machine was suspended: the lid closed) and a new default route (another network). A value type
/// fed with readings, so tests drive it without sleeping or touching /proc.
public struct NetworkWatch: Sendable {
    public enum Change: Sendable, Equatable {
        /// The wall clock moved this many seconds more than the monotonic clock: a resume from suspend.
        case resumedFromSuspend(seconds: Double)
        /// The default route changed (or appeared).
        case routeChanged
    }

    /// A jump larger than this counts as a suspend.
    public var jumpThreshold: Double
    private var last: (wall: Double, monotonic: Double, route: String?)?

    public init(jumpThreshold: Double = 5) { self.jumpThreshold = jumpThreshold }

    /// One reading: wall-clock seconds, monotonic seconds that stop during suspend, the default route.
    public mutating func observe(wall: Double, monotonic: Double, route: String?) -> Change? {
        defer { last = (wall, monotonic, route) }
        guard let last else { return nil }
        let jump = (wall - last.wall) - (monotonic - last.monotonic)
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

import Foundation

/// One finding of `parley doctor`: what was checked, how it went, and what to do about it.
struct DoctorCheck: Sendable, Equatable, Encodable {
    enum Status: String, Sendable, Encodable, Comparable {
        /// `skip`: not checked, because it does not apply here (no terminal, nothing configured, an earlier step
        /// failed); never a problem by itself.
        case ok = "OK", skip = "SKIP", warn = "WARN", fail = "FAIL"

        private var rank: Int {
            switch self {
            case .ok, .skip: 0
            case .warn: 1
            case .fail: 2
            }
        }
        static func < (a: Status, b: Status) -> Bool { a.rank < b.rank }
    }

    /// The area, e.g. "key", "sound", "terminal", "network".
    var area: String
    /// The item within the area, e.g. "DNS" or "mic level".
    var item: String
    var status: Status
    /// What was found, in a few words. Never a secret.
    var detail: String
    /// How to fix it; nil when there is nothing to do.
    var fix: String?

    static func ok(_ area: String, _ item: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(area: area, item: item, status: .ok, detail: detail, fix: nil)
    }
    static func skip(_ area: String, _ item: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(area: area, item: item, status: .skip, detail: detail, fix: nil)
    }
    static func warn(_ area: String, _ item: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(area: area, item: item, status: .warn, detail: detail, fix: fix)
    }
    static func fail(_ area: String, _ item: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(area: area, item: item, status: .fail, detail: detail, fix: fix)
    }
}

/// Every finding of one `parley doctor` run, printed as one screen of text or as JSON.
struct DoctorReport: Sendable, Equatable {
    var checks: [DoctorCheck] = []

    /// The worst status found (OK for an empty report).
    var worst: DoctorCheck.Status { checks.map(\.status).max() ?? .ok }

    /// 0 when nothing failed (warnings allowed), 1 when a check failed.
    var exitCode: Int32 { worst == .fail ? 1 : 0 }

    /// Aligned lines: `STATUS  area  item  detail`, each fix on the line below its finding, then a verdict.
    var text: String {
        let areaWidth = checks.map { $0.area.count }.max() ?? 0
        let itemWidth = checks.map { $0.item.count }.max() ?? 0
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
        var lines: [String] = []
        for c in checks {
            lines.append("\(pad(c.status.rawValue, 4))  \(pad(c.area, areaWidth))  \(pad(c.item, itemWidth))  \(c.detail)")
            if let fix = c.fix { lines.append(String(repeating: " ", count: 6 + areaWidth + 2 + itemWidth + 2) + "→ " + fix) }
        }
        let fails = checks.filter { $0.status == .fail }.count
        let warns = checks.filter { $0.status == .warn }.count
        switch (fails, warns) {
        case (0, 0): lines.append("\nAll is well.")
        case (0, _): lines.append("\nNo failures; \(warns) warning\(warns == 1 ? "" : "s").")
        default: lines.append("\n\(fails) failed, \(warns) warning\(warns == 1 ? "" : "s"): parley will not work fully until the failures are fixed.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"ok": Bool, "worst": "OK|WARN|FAIL", "checks": [{area, item, status, detail, fix?}]}` on one line.
    var json: String {
        struct Out: Encodable {
            var ok: Bool
            var worst: DoctorCheck.Status
            var checks: [DoctorCheck]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(Out(ok: exitCode == 0, worst: worst, checks: checks)),
              let s = String(data: data, encoding: .utf8) else { return "{}\n" }
        return s + "\n"
    }
}

import CNcursesw
import Foundation
import ParleyTime

#if canImport(Glibc)
import Glibc
#endif

/// Questions about the terminal asked without taking it over (no curses screen, no alternate screen), for
/// `parley doctor`.
public enum TerminalProbe {
    /// The colour count terminfo gives `term`: nil when terminfo does not know the terminal, 0 for none.
    public static func colors(term: String) -> Int? {
        let n = parley_terminfo_colors(term)
        return n == -2 ? nil : max(0, Int(n))
    }

    /// The size of the terminal on `fd`, or nil when `fd` is not a terminal.
    public static func size(fd: Int32 = 1) -> Size? {
        var rows: Int32 = 0, cols: Int32 = 0
        guard isatty(fd) == 1, parley_winsize(fd, &rows, &cols) == 0 else { return nil }
        return Size(rows: Int(rows), columns: Int(cols))
    }

    /// The codeset of the user's locale (from LANG / LC_*), e.g. "UTF-8" or "ANSI_X3.4-1968".
    public static func localeCodeset() -> String {
        let saved = setlocale(LC_CTYPE, nil).map { String(cString: $0) }
        setlocale(LC_CTYPE, "")
        let codeset = nl_langinfo(nl_item(CODESET)).map { String(cString: $0) } ?? ""
        if let saved { setlocale(LC_CTYPE, saved) }
        return codeset
    }

    /// Whether a codeset name means UTF-8 ("UTF-8", "utf8").
    public static func isUTF8(codeset: String) -> Bool { codeset.uppercased().filter { $0 != "-" } == "UTF8" }

    /// Asks the terminal on stdin/stdout whether it speaks the kitty keyboard protocol, as `Terminal` does at
    /// start: `CSI ? u` then `CSI c`, answered within `timeout` seconds. Nil when stdin or stdout is not a
    /// terminal (nothing is written then). The tty modes are restored before returning.
    public static func kittyKeyboard(timeout: Double = 0.5, time: TimeSource = .monotonic) -> KittyDetection.Result? {
        guard isatty(0) == 1, isatty(1) == 1 else { return nil }
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { return nil }
        var raw = saved
        // No echo and no line buffering, so the reply is neither shown nor held until Enter.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(0, TCSANOW, &raw) == 0 else { return nil }
        defer { tcsetattr(0, TCSAFLUSH, &saved) }

        let query = Array(KittyDetection.query.utf8)
        guard query.withUnsafeBytes({ write(1, $0.baseAddress, $0.count) }) == query.count else { return nil }
        let start = time.now()
        var detection = KittyDetection(sentAt: start, timeout: timeout)
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let now = time.now()
            if let r = detection.tick(now: now) { return r }
            var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, ((detection.deadline - now) * 1000).rounded(.up)))
            guard poll(&pfd, 1, wait) >= 0 || errno == EINTR else { return .unsupported }
            guard pfd.revents & Int16(POLLIN) != 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            guard n > 0 else { continue }
            for e in decoder.feed(buffer[0..<n], now: time.now()) {
                if let r = detection.observe(e) { return r }
            }
        }
    }
}

import Foundation
import Live

/// `[auth] token_command`: a command that prints a bare token or `{"token": …, "expires_at": …}` (RFC 3339 or
/// seconds since 1970), in the spirit of AWS's `credential_process` and kubectl's exec plugins. Its output is
/// never logged; its stderr is shown when it fails.
public struct TokenCommand: Sendable, Equatable {
    public var command: String
    public var timeout: Double

    public init(command: String, timeout: Double = 15) {
        self.command = command
        self.timeout = timeout
    }

    /// A token from the command, with its expiry (wall-clock seconds since 1970) when it says.
    public struct Output: Sendable {
        public var token: Secret
        public var expiresAt: Double?
    }

    public func run(environment: [String: String]) async throws(CredentialFailure) -> Output {
        let result: CommandRunner.Result
        do {
            result = try await CommandRunner.run(["/bin/sh", "-c", command], environment: environment, timeout: timeout)
        } catch {
            throw CredentialFailure("the token command could not start: \(error)", hint: "check [auth] token_command")
        }
        let stderr = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        let said = stderr.isEmpty ? "" : "; it said: \(String(stderr.suffix(400)))"
        if result.timedOut {
            throw CredentialFailure("the token command did not finish within \(Int(timeout)) s\(said)", hint: "make it print a token faster, or raise [auth] token_timeout")
        }
        guard result.status == 0 else {
            throw CredentialFailure("the token command failed with status \(result.status)\(said)", hint: "run it yourself to see why; it must print a token and exit 0")
        }
        return try Self.parse(result.stdout)
    }

    /// A bare token (one word) or the JSON form.
    public static func parse(_ stdout: Data) throws(CredentialFailure) -> Output {
        let text = String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw CredentialFailure("the token command printed nothing", hint: "it must print a token, or {\"token\": …, \"expires_at\": …}, on stdout")
        }
        guard text.hasPrefix("{") else {
            guard !text.contains(where: \.isWhitespace) else {
                throw CredentialFailure("the token command printed more than one word", hint: "print only the token, or {\"token\": …, \"expires_at\": …}")
            }
            return Output(token: Secret(text), expiresAt: nil)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw CredentialFailure("the token command printed JSON that does not parse", hint: "print {\"token\": …, \"expires_at\": …}")
        }
        guard let token = object["token"] as? String, !token.isEmpty else {
            throw CredentialFailure("the token command's JSON has no field token", hint: "print {\"token\": …, \"expires_at\": …}")
        }
        var expires: Double?
        switch object["expires_at"] {
        case let n as NSNumber: expires = n.doubleValue
        case let s as String:
            guard let t = rfc3339(s) else {
                throw CredentialFailure("the token command's field expires_at is not an RFC 3339 time", hint: "use e.g. \"2026-11-24T03:00:00Z\", or seconds since 1970")
            }
            expires = t
        case nil, is NSNull: expires = nil
        default:
            throw CredentialFailure("the token command's field expires_at is neither a time nor a number", hint: "use e.g. \"2026-11-24T03:00:00Z\", or seconds since 1970")
        }
        return Output(token: Secret(token), expiresAt: expires)
    }

    /// `2026-11-24T03:00:00Z`, with optional fractional seconds and a `±hh:mm` offset; the C library's calendar,
    /// not Foundation's formatters (ICU's data stays unloaded).
    static func rfc3339(_ s: String) -> Double? {
        let chars = Array(s.utf8)
        guard chars.count >= 19, chars[4] == UInt8(ascii: "-"), chars[7] == UInt8(ascii: "-"),
            chars[10] == UInt8(ascii: "T") || chars[10] == UInt8(ascii: "t"), chars[13] == UInt8(ascii: ":"),
            chars[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ from: Int, _ to: Int) -> Int32? { Int32(String(decoding: chars[from..<to], as: UTF8.self)) }
        guard let year = number(0, 4), let month = number(5, 7), let day = number(8, 10), let hour = number(11, 13),
            let minute = number(14, 16), let second = number(17, 19)
        else { return nil }
        var t = tm()
        t.tm_year = year - 1900
        t.tm_mon = month - 1
        t.tm_mday = day
        t.tm_hour = hour
        t.tm_min = minute
        t.tm_sec = second
        let rest = String(decoding: chars[19...], as: UTF8.self)
        var tail = Substring(rest)
        var fraction = 0.0
        if tail.hasPrefix(".") {
            let digits = tail.dropFirst().prefix { $0.isNumber }
            fraction = Double("0." + digits) ?? 0
            tail = tail.dropFirst(1 + digits.count)
        }
        var offset = 0
        if tail == "Z" || tail == "z" {
            offset = 0
        } else if let sign = tail.first, sign == "+" || sign == "-", tail.count == 6,
            let h = Int(tail.dropFirst().prefix(2)), let m = Int(tail.suffix(2))
        {
            offset = (sign == "-" ? -1 : 1) * (h * 3600 + m * 60)
        } else {
            return nil
        }
        return Double(timegm(&t) - offset) + fraction
    }
}

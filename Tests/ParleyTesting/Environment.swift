import Foundation

/// The environment a `parley` process under test runs in: `HOME` and the XDG config, data and state
/// directories under `home`, so nothing of the user's (or another test's) configuration, transcripts or state
/// is read or written; the caller's `PATH`; a UTF-8 locale. `extra` adds to it or overrides (a terminal type,
/// a sound server, a key).
public func isolatedEnvironment(home: String, _ extra: [String: String] = [:]) -> [String: String] {
    var env = [
        "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
        "XDG_STATE_HOME": home + "/state", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        "LANG": "C.UTF-8",
    ]
    env.merge(extra) { $1 }
    return env
}

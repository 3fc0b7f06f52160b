import Foundation

/// Finds and loads `<name>.toml` themes from a list of directories, falling back to `Theme.default`.
public struct ThemeLoader: Sendable {
    /// Directories searched in order, e.g. `$XDG_CONFIG_HOME/parley/themes` then the bundled `themes`.
    public var searchDirectories: [String]

    public init(searchDirectories: [String]) { self.searchDirectories = searchDirectories }

    /// The usual search list: `$XDG_CONFIG_HOME/parley/themes` (or `~/.config/…`), then the bundled directory.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment,
                                executablePath: String = ThemeLoader.currentExecutablePath()) -> ThemeLoader {
        var dirs: [String] = []
        if let x = environment["XDG_CONFIG_HOME"], !x.isEmpty { dirs.append(x + "/parley/themes") } else if let h = environment["HOME"] { dirs.append(h + "/.config/parley/themes") }
        if let b = bundledThemesDirectory(executablePath: executablePath) { dirs.append(b) }
        return ThemeLoader(searchDirectories: dirs)
    }

    /// The running executable's real path (`/proc/self/exe`), which argv[0] is not when run through `PATH`.
    public static func currentExecutablePath() -> String {
        if let p = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return p }
        return Bundle.main.executablePath ?? CommandLine.arguments.first ?? ""
    }

    /// The bundled `themes/` directory: next to the executable, in `../share/parley/themes`, or in the package root
    /// above a `.build/<config>/` executable.
    public static func bundledThemesDirectory(executablePath: String) -> String? {
        let fm = FileManager.default
        var dir = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [dir.appendingPathComponent("themes").path, dir.appendingPathComponent("../share/parley/themes").standardized.path]
        for _ in 0..<5 {
            dir = dir.deletingLastPathComponent()
            candidates.append(dir.appendingPathComponent("themes").path)
        }
        return candidates.first { fm.fileExists(atPath: $0 + "/default.toml") }
    }

    /// Theme names available in the search directories.
    public func availableThemes() -> [String] {
        var names = Set<String>(["default"])
        for d in searchDirectories {
            for f in (try? FileManager.default.contentsOfDirectory(atPath: d)) ?? [] where f.hasSuffix(".toml") {
                names.insert(String(f.dropLast(5)))
            }
        }
        return names.sorted()
    }

    /// Loads a theme by name. On any error returns `Theme.default` together with the error to show the user.
    public func load(_ name: String) -> (theme: Theme, error: ThemeError?) {
        switch loadStrict(name) {
        case .success(let t): return (t, nil)
        case .failure(let e): return (.default, e)
        }
    }

    /// Loads a theme by name, or says why it could not. `default` falls back to the built-in copy if no file exists.
    public func loadStrict(_ name: String) -> Result<Theme, ThemeError> {
        for d in searchDirectories {
            let path = d + "/" + name + ".toml"
            guard FileManager.default.fileExists(atPath: path) else { continue }
            return Self.loadFile(path)
        }
        if name == "default" { return .success(.default) }
        return .failure(.notFound(name: name, searched: searchDirectories))
    }

    /// Loads one theme file.
    public static func loadFile(_ path: String) -> Result<Theme, ThemeError> {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return .failure(.unreadable(file: path))
        }
        // The shipped default needs no parsing (TOML parsing is the slowest part of start-up).
        if text == Theme.defaultFileText || text + "\n" == Theme.defaultFileText { return .success(.default) }
        return ThemeParser.parse(text: text, file: path)
    }
}

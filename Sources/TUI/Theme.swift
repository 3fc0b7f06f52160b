/// A theme: the style of every semantic role. Roles a theme file leaves out come from `Theme.default`.
public struct Theme: Sendable, Equatable {
    public var name: String
    public var styles: [Role: CellStyle]

    public init(name: String, styles: [Role: CellStyle]) { self.name = name; self.styles = styles }

    /// The style for a role (plain if the theme has none).
    public func style(_ role: Role) -> CellStyle { styles[role] ?? styles[.normal] ?? .plain }

    /// The built-in dark theme, identical to `themes/default.toml`, so parley works with no themes directory.
    public static let `default` = Theme(name: "default", styles: Theme.defaultStyles)
}

/// parley's version, as `parley --version` prints it. A build from source says `0.1.0-dev`; `scripts/package.sh`
/// writes `Generated/PackagedVersion.swift` (git-ignored) from `git describe --tags --always --dirty` and builds
/// with `-DPARLEY_PACKAGED`, so the released binary names the commit it was built from.
enum ParleyVersion {
    /// The version the next tag will carry; a package built before any tag is `base+git.COMMIT`.
    static let base = "0.1.0"

    #if PARLEY_PACKAGED
    static let text = packagedVersion
    #else
    static let text = base + "-dev"
    #endif
}

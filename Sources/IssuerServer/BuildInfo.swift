/// What `issuer_build_info` says about the running binary (docs/operations.md, "Reading the
/// metrics"): the release and git commit of `issuer --version`, and the Swift compiler that built it.
public struct BuildInfo: Sendable, Equatable {
    /// The release, e.g. `0.1.0`.
    public var version: String
    /// The git commit the binary was built from, or `unknown`.
    public var commit: String
    /// The compiler's language version, e.g. `6.3`.
    public var swift: String

    public init(version: String, commit: String, swift: String = BuildInfo.compilerVersion) {
        self.version = version
        self.commit = commit
        self.swift = swift
    }

    /// An application a test builds, which has no release.
    public static let unknown = BuildInfo(version: "unknown", commit: "unknown")

    /// The compiler that built this file, to a minor version (the project needs 6.2 or later).
    public static var compilerVersion: String {
        #if compiler(>=6.7)
        "6.7+"
        #elseif compiler(>=6.6)
        "6.6"
        #elseif compiler(>=6.5)
        "6.5"
        #elseif compiler(>=6.4)
        "6.4"
        #elseif compiler(>=6.3)
        "6.3"
        #else
        "6.2"
        #endif
    }
}

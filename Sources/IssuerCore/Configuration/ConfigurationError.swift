/// A setting with an unusable value. The process stops at start with this one line on stderr;
/// it never runs half-configured (docs/reference.md, "Configuration").
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable, e.g. `ISSUER_PORT`.
    public let setting: String
    /// What is wrong, in words an operator can act on.
    public let problem: String

    /// `problem` follows the setting's name in the error line, e.g. `must be a whole number from 1 to 65535`.
    public init(setting: String, problem: String) {
        self.setting = setting
        self.problem = problem
    }

    /// The single stderr line, e.g. `invalid configuration: ISSUER_PORT (--port) must be …`.
    public var description: String {
        let flag = ConfigurationSetting.named(setting).map { " (--\($0.flag))" } ?? ""
        return "invalid configuration: \(setting)\(flag) \(problem)"
    }
}

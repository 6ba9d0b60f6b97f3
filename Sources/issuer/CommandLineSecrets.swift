import Foundation
import IssuerCore

/// docs/reference.md, "Configuration": a secret is never taken from the command line without a warning, because every user
/// of the host can read a process's arguments (`ps`, `/proc/<pid>/cmdline`).
enum CommandLineSecrets {
    /// One warning line per secret setting among `overrides` (the flags given, keyed by variable),
    /// naming the safer forms. Never includes the value.
    static func warnings(for overrides: [String: String]) -> [String] {
        ConfigurationSetting.all.compactMap { setting in
            guard setting.isSecret, overrides[setting.variable] != nil else { return nil }
            let file = setting.fileVariable.map { " or \($0)" } ?? ""
            return "issuer: warning: --\(setting.flag) puts a secret on the command line, where other users of this host can read it; set \(setting.variable)\(file) instead"
        }
    }

    /// Writes ``warnings(for:)`` to stderr; called once the configuration is known to be valid,
    /// so that an invalid one still gets exactly one line (docs/reference.md, "Configuration").
    static func warn(_ overrides: [String: String]) {
        for line in warnings(for: overrides) {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }
}

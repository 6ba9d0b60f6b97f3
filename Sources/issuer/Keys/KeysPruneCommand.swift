import ArgumentParser
import IssuerCore

/// `issuer keys prune` (docs/reference.md, "Signing keys" and "Admin CLI"): removes retired keys whose publication window has passed;
/// `--force` removes every retired key and warns what stops verifying.
struct KeysPruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove retired keys whose overlap has passed.")

    @Flag(help: "Emergency only (a leaked key): remove every retired key, even if tokens it signed are still valid.")
    var force = false

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: KeySettingsOptions

    func run() throws {
        let rotation = try settings.rotation()
        let pruning = try KeysCommand.run("prune") { try rotation.prune(force: force) }
        if let warning = pruning.warning { KeysCommand.warn(warning) }
        print(pruning.message)
    }
}

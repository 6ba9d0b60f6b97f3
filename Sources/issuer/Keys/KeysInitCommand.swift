import ArgumentParser
import IssuerCore

/// `issuer keys init` (docs/reference.md, "Admin CLI"): creates an active and a next key if the ring is empty; on a
/// non-empty ring it says so and exits 0. Key files without their `ring.json` (a broken ring) are refused, exit 1: a new
/// ring over them would replace every key verifiers trust.
struct KeysInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create an active and a next key if the ring is empty.")

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: KeySettingsOptions

    func run() throws {
        let rotation = try settings.rotation()
        let result = try KeysCommand.run("init") { try rotation.initialize() }
        print(result.message)
    }
}

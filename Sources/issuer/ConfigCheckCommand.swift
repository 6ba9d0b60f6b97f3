import ArgumentParser
import Foundation
import IssuerCore

/// `issuer config check` (docs/reference.md, "Admin CLI"): validates the configuration as `issuer serve` would (the same
/// loader, the same key ring rule) and prints the effective settings with secrets redacted; exit
/// status 1 with one line naming the problem otherwise. Touches no database.
struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate the configuration as `serve` would and print the effective settings (secrets redacted).")

    @OptionGroup var output: OutputOptions

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: SettingsOptions

    func run() throws {
        let configuration = try ConfigurationLoader.load(settings)
        if output.isJSON {
            let ring = try KeyRingPreflight.check(configuration)
            // Every setting of the table is a member, null when unset, secrets as "<redacted>".
            JSONValue.object([
                "settings": .object(Dictionary(uniqueKeysWithValues: configuration.effectiveSettings.map { ($0.setting.variable, JSONValue.string($0.value)) })),
                "key_ring": .object(["keys": .number(ring.keys.count), "active": .string(ring.active?.kid), "next": .string(ring.next?.kid)]),
            ]).print()
            return
        }
        let ring = try checkKeyRing(configuration)
        let width = ConfigurationSetting.all.map(\.variable.count).max() ?? 0
        for (setting, value) in configuration.effectiveSettings {
            print(setting.variable.padding(toLength: width + 2, withPad: " ", startingAt: 0) + (value ?? "unset"))
        }
        print("key ring: \(ring)")
    }

    /// docs/reference.md, "Signing keys" and "The embedded database": the ring as `serve` would find it.
    private func checkKeyRing(_ configuration: Configuration) throws -> String {
        let ring = try KeyRingPreflight.check(configuration)
        guard let active = ring.active else {
            return "empty; `issuer serve` creates it on the embedded database"
        }
        return "\(ring.keys.count) keys, active \(active.kid)"
    }
}

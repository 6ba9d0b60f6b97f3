import ArgumentParser
import Foundation
import IssuerCore

/// `issuer config check` (SPEC §6): validates the configuration as `issuer serve` would (the same
/// loader, the same key ring rule) and prints the effective settings with secrets redacted; exit
/// status 1 with one line naming the problem otherwise. Touches no database.
struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate the configuration as `serve` would and print the effective settings (secrets redacted).")

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: SettingsOptions

    func run() throws {
        let configuration = try ConfigurationLoader.load(settings)
        let ring = try checkKeyRing(configuration)
        let width = ConfigurationSetting.all.map(\.variable.count).max() ?? 0
        for (setting, value) in configuration.effectiveSettings {
            print(setting.variable.padding(toLength: width + 2, withPad: " ", startingAt: 0) + (value ?? "unset"))
        }
        print("key ring: \(ring)")
    }

    /// SPEC §5, §8, as `serve` applies them: an invalid ring stops it; an empty one is created on
    /// the embedded default and stops it with an external database.
    private func checkKeyRing(_ configuration: Configuration) throws -> String {
        let store = KeyRingStore(directory: configuration.keysDirectory)
        let ring: KeyRing
        do {
            ring = try store.load()
        } catch {
            FileHandle.standardError.write(Data("issuer: the key ring in \(store.directory.path) is invalid: \(error)\n".utf8))
            throw ExitCode(1)
        }
        if let active = ring.active {
            return "\(ring.keys.count) keys, active \(active.kid)"
        }
        guard configuration.databaseURL == nil else {
            FileHandle.standardError.write(Data(
                "issuer: the key ring in \(store.directory.path) is empty; create it with `issuer keys init`\n".utf8))
            throw ExitCode(1)
        }
        return "empty; `issuer serve` creates it on the embedded database"
    }
}

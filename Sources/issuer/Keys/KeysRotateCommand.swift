import ArgumentParser
import IssuerCore

/// `issuer keys rotate` (docs/reference.md, "Signing keys" and "Admin CLI"): next → active, active → retired, new next. Refused (exit
/// 1) while the next key is too new; with `--if-older-than`, "not due" and "too new" exit 0 with
/// the reason, so cron stays quiet.
struct KeysRotateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Promote the next key, retire the active key, and create a new next key.",
        discussion: "Refused while the next key has been published for less than the JWKS max-age (300 s) plus 60 s.")

    @Option(
        name: .customLong("if-older-than"),
        help: ArgumentHelp("rotate only if the active key has been active this long, e.g. 30d, 12h, 90m, 3600s (for cron)", valueName: "age"),
        transform: { text in
            guard let duration = Duration(compactNotation: text) else {
                throw ValidationError("--if-older-than must be a positive whole number with one unit: s, m, h or d (e.g. 30d)")
            }
            return duration
        })
    var ifOlderThan: Duration?

    @Flag(help: "Emergency only (a leaked key): promote a next key that verifiers may not have fetched yet.")
    var force = false

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: KeySettingsOptions

    func validate() throws {
        if force, ifOlderThan != nil {
            throw ValidationError("--force and --if-older-than cannot be combined: cron must never force a rotation")
        }
    }

    func run() throws {
        let rotation = try settings.rotation()
        if let ifOlderThan {
            print(try KeysCommand.run("rotate", { try rotation.rotateIfOlderThan(ifOlderThan) }).message)
            return
        }
        let completed = try KeysCommand.run("rotate") { try rotation.rotate(force: force) }
        if let warning = completed.warning { KeysCommand.warn(warning) }
        print(completed.message)
    }
}

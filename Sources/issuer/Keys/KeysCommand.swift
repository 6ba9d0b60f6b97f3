import ArgumentParser
import Foundation
import IssuerCore

/// `issuer keys` (docs/reference.md, "Admin CLI"): the signing key ring (docs/reference.md, "Signing keys"). Works on `ISSUER_KEYS_DIR` alone and
/// never opens the database, so it runs anywhere the key volume is mounted.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the signing key ring (ISSUER_KEYS_DIR).",
        discussion: """
            The ring holds one active key (signs everything), at most one next key (published before it \
            signs, so verifiers have cached it) and retired keys (published until every token they signed \
            has expired). Every subcommand is safe to re-run.
            """,
        subcommands: [KeysInitCommand.self, KeysListCommand.self, KeysRotateCommand.self, KeysPruneCommand.self]
    )

    /// `message` as the command's one-line failure reason, exit status 1 (docs/cli.md).
    static func fail(_ command: String, _ message: String) -> CommandFailure {
        CommandFailure(.failed, message, command: "keys \(command)")
    }

    /// Prints a `--force` warning on stderr, so it is seen even when stdout goes to a log.
    static func warn(_ warning: String) {
        FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
    }

    /// Runs one ring operation, turning its errors into the one-line failure (docs/reference.md, "Admin CLI").
    static func run<Result>(_ command: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as CommandFailure {
            throw error
        } catch let refusal as KeyRotationError {
            throw fail(command, refusal.message)
        } catch {
            throw fail(command, "\(error)")
        }
    }
}

import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import IssuerCore
import IssuerStorage
import IssuerServer
import Logging

/// `issuer apple transfer export --target TEAM_ID`, `import`, `status` (docs/operations.md,
/// "Apple team transfer"): each run with the credentials of its side of the transfer.
struct AppleTransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer", abstract: "Move the app's users to another Apple developer team.",
        subcommands: [Export.self, Import.self, Status.self])

    /// The sending side: a transfer identifier for every Apple identity.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "On the sending team: get each Apple identity's transfer identifier for the target team.")

        @Option(help: "The receiving team's ID.")
        var target: String

        @OptionGroup var output: OutputOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard !target.isEmpty, target.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw ValidationError("--target must be an Apple team ID (capital letters and digits)")
            }
        }

        func run() async throws {
            try await AppleTransferCommand.run(database, output: output, what: "exported") { transfer, logger, report in
                try await transfer.export(target: target, logger: logger, progress: report)
            }
        }
    }

    /// The receiving side: every exported identity re-keyed to its new `sub`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "On the receiving team: re-key each exported Apple identity to its new sub.")

        @OptionGroup var output: OutputOptions
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await AppleTransferCommand.run(database, output: output, what: "re-keyed") { transfer, logger, report in
                try await transfer.importIdentities(logger: logger, progress: report)
            }
        }
    }

    /// Apple identities by stage.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Count Apple identities by transfer stage.")

        @OptionGroup var output: OutputOptions
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await AdminCommand.withDatabase(database) { pool, _ in
                let stages = try await AppleTransferStore(pool: pool).stages()
                if output.isJSON {
                    JSONValue.object([
                        "not_exported": .number(stages.notExported), "exported": .number(stages.exported), "rekeyed": .number(stages.rekeyed),
                    ]).print()
                } else {
                    AdminCommand.show("not exported \(stages.notExported), exported \(stages.exported), re-keyed \(stages.rekeyed)")
                }
            }
        }
    }

    /// Runs one side: progress on a terminal (done, left, failed, rate), one summary line, exit 1 if any failed.
    static func run(
        _ database: DatabaseOptions, output: OutputOptions, what: String,
        _ body: (AppleTeamTransfer, Logger, (AppleTeamTransfer.Progress) -> Void) async throws -> AppleTeamTransfer.Progress
    ) async throws {
        try await AdminCommand.withDatabase(database) { pool, configuration in
            var logger = Logger(label: "issuer")
            logger.logLevel = .warning
            guard let api = AppleTokenAPI.live(
                credentials: configuration.appleCredentials, tokenURL: configuration.appleTokenURL, revokeURL: configuration.appleRevokeURL,
                migrationURL: configuration.appleMigrationURL, proxy: configuration.outboundProxy, clock: SystemClock())
            else {
                throw CommandFailure(.usage, "Apple developer credentials are required: ISSUER_APPLE_TEAM_ID, ISSUER_APPLE_KEY_ID, ISSUER_APPLE_PRIVATE_KEY_FILE")
            }
            let transfer = AppleTeamTransfer(store: AppleTransferStore(pool: pool), api: api, clock: SystemClock())
            let terminal = isatty(STDERR_FILENO) == 1 && !output.isJSON
            let started = ContinuousClock.now
            let counts = try await body(transfer, logger) { progress in
                guard terminal else { return }
                let seconds = max(0.001, Double((ContinuousClock.now - started).components.seconds) + 0.001)
                let rate = Double(progress.done + progress.failed) / seconds
                FileHandle.standardError.write(Data(String(
                    format: "\r%d %@, %d left, %d failed (%.1f/s)   ", progress.done, what, progress.left, progress.failed, rate).utf8))
            }
            if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
            if output.isJSON {
                JSONValue.object([what.replacingOccurrences(of: "-", with: ""): .number(counts.done), "failed": .number(counts.failed)]).print()
            } else {
                AdminCommand.show("\(counts.done) \(what), \(counts.failed) failed\(counts.failed > 0 ? "; run it again to retry them" : "")")
            }
            if counts.failed > 0 { throw CommandFailure(.failed, nil) }
        }
    }
}

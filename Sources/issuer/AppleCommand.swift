import ArgumentParser
import Foundation
import IssuerCore
import IssuerStorage

/// `issuer apple revocations`: the queue of Apple token revocations (docs/operations.md); `issuer
/// apple transfer`: moving the app's users to another Apple developer team.
struct AppleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple", abstract: "Apple token custody and team transfer.",
        subcommands: [AppleRevocationsCommand.self, AppleTransferCommand.self])
}

/// Pending revocations first (next due first), then the latest finished ones. Never a token.
struct AppleRevocationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revocations", abstract: "List queued and recent Apple token revocations (never the tokens).")

    @Option(help: "At most this many rows.")
    var limit = 100

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        try await AdminCommand.withDatabase(database) { pool, _ in
            // Listing needs neither the secret nor Apple: no vault opens anything here.
            let entries = try await AppleRevocationStore(pool: pool).list(limit: limit)
            if output.isJSON {
                JSONValue.object(["revocations": .array(entries.map(\.json))]).print()
                return
            }
            guard !entries.isEmpty else {
                AdminCommand.show("No Apple revocations.")
                return
            }
            print(AdminCommand.table(
                ["ID", "USER", "CLIENT", "QUEUED", "TRIES", "STATE", "LAST ERROR"],
                entries.map { entry in
                    [entry.id.uuidString.lowercased(), entry.userID.uuidString.lowercased(), entry.clientID,
                     AdminCommand.format(entry.createdAt), String(entry.attempts),
                     entry.finishedAt.map { "\(entry.outcome ?? "done") \(AdminCommand.format($0))" }
                        ?? "pending, next \(AdminCommand.format(entry.nextAttemptAt))",
                     entry.lastError ?? "-"]
                }))
        }
    }
}

import ArgumentParser
import Foundation
import IssuerCore
import IssuerStorage

/// `issuer users find --email ADDRESS` or `--provider ID --subject SUB`: the users a support
/// request names, with their internal `sub` and identities (docs/cli.md). Exit 3 when none.
struct UsersFindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find", abstract: "Find users by e-mail address, or by a provider's subject.")

    @Option(help: "An e-mail address: the user's, or any of its identities' (case-insensitive).")
    var email: String?

    @Option(help: "A provider id (apple, google, …), with --subject.")
    var provider: String?

    @Option(help: "The provider's `sub` of the user, with --provider.")
    var subject: String?

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard (email != nil) != (provider != nil || subject != nil) else {
            throw ValidationError("give either --email or both --provider and --subject")
        }
        guard (provider == nil) == (subject == nil) else { throw ValidationError("--provider and --subject go together") }
    }

    func run() async throws {
        try await AdminCommand.withDatabase(database) { pool, _ in
            let users = try await SessionDirectoryStore(pool: pool).find(email: email, provider: provider, subject: subject)
            guard !users.isEmpty else { throw CommandFailure.notFound("no user matches") }
            if output.isJSON {
                JSONValue.object(["users": .array(users.map(Self.json))]).print()
            } else {
                for details in users {
                    let identities = details.identities.map { "\($0.provider) \($0.subject)" }.joined(separator: ", ")
                    AdminCommand.show("\(details.user.subject)  \(details.user.email ?? "-")  \(identities)")
                }
            }
        }
    }

    static func json(_ details: SessionDirectoryStore.UserDetails) -> JSONValue {
        .object([
            "sub": .string(details.user.subject), "email": .string(details.user.email), "created_at": .date(details.createdAt),
            "identities": .array(details.identities.map {
                .object(["provider": .string($0.provider), "subject": .string($0.subject), "last_sign_in_at": .date($0.lastSignInAt)])
            }),
        ])
    }
}

import ArgumentParser
import Foundation
import IssuerCore
import IssuerStorage
import IssuerServer
import Logging

/// `issuer users delete SUB` (docs/reference.md, "Admin CLI"): the deletion of `DELETE /account` (docs/reference.md, "Account deletion"), for a
/// request that reaches support by e-mail. Apple tokens are revoked at once when Apple answers
/// within about 2 seconds; otherwise the running servers' workers retry them.
struct UsersDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a user as DELETE /account does: data, identities, sessions; revokes its Apple tokens.",
        discussion: "Asks for confirmation on a terminal; elsewhere (a script, a pipe) --yes is required.")

    @Argument(help: "The user: the `sub` of its tokens.")
    var sub: String

    @Flag(help: "Delete without asking.")
    var yes = false

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let userID = try AdminCommand.uuid(sub, "user")
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw CommandFailure.usage("refusing to delete user \(sub) without --yes: standard input is not a terminal")
            }
            print("Delete user \(sub), its identities and sessions? This cannot be undone. Type 'yes': ", terminator: "")
            guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                throw CommandFailure.failed("not deleted")
            }
        }
        try await AdminCommand.withDatabase(database) { pool, configuration in
            var logger = Logger(label: "issuer")
            logger.logLevel = .error
            let secret = try await ServerSecret.load(configured: configuration.secret, store: ServerSecretStore(pool: pool))
            let clock = SystemClock()
            let api = AppleTokenAPI.live(
                credentials: configuration.appleCredentials, tokenURL: configuration.appleTokenURL,
                revokeURL: configuration.appleRevokeURL, proxy: configuration.outboundProxy, clock: clock)
            let queue = AppleRevocationQueue(
                store: AppleRevocationStore(pool: pool), vault: AppleTokenVault(secret: secret), api: api, clock: clock,
                events: UncountedAccountEvents())
            let deletion = AccountDeletion(
                store: AccountDeletionStore(pool: pool, noticeProviders: configuration.providers.deletionNoticeProviders),
                clock: clock, revocations: queue, events: UncountedAccountEvents())
            guard let outcome = try await deletion.delete(userID: userID, reason: .operatorRequest, logger: logger) else {
                if let deleted = try await AccountDeletionStore(pool: pool).deletion(userID: userID) {
                    AdminCommand.show("User \(sub) was already deleted \(AdminCommand.format(deleted.at)) (\(deleted.reason)).")
                    return
                }
                throw CommandFailure.notFound("no user \(sub)")
            }
            AdminCommand.show("Deleted user \(sub).")
            if outcome.queuedRevocations > 0 {
                let waiting = outcome.queuedRevocations - outcome.settledRevocations
                AdminCommand.show("Apple tokens: \(outcome.settledRevocations) revoked at Apple"
                    + (waiting > 0 ? ", \(waiting) queued; the servers retry them (see `issuer apple revocations`)." : "."))
            }
        }
    }
}

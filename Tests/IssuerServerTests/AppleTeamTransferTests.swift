import Foundation
import HummingbirdTesting
import IssuerCore
import IssuerStorage
@testable import IssuerServer
import Logging
import Synchronization
import Testing
import TestSupport

/// Moving the app's users to another Apple team (reference: Apple team transfer), against the
/// fake Apple's token and `usermigrationinfo` endpoints on loopback: the internal `sub` of every
/// user survives, whichever comes first, the import or the user's next sign-in.
@Suite("Apple team transfer", .timeLimit(.minutes(10)))
struct AppleTeamTransferTests {
    static func transfer(_ rig: AppleTestRig) -> AppleTeamTransfer {
        AppleTeamTransfer(
            store: AppleTransferStore(pool: rig.fixture.pool), api: IssuerServices.appleAPI(rig.fixture.dependencies)!, clock: rig.fixture.clock,
            firstWait: .milliseconds(5))
    }

    @Test("export (429s retried), a sign-in with transfer_sub before import, import: every user keeps its internal sub; re-runs skip what is done")
    func wholeTransfer() async throws {
        try await AppleTestRig.run { rig in
            let users = Mutex<[String: UUID]>([:])
            try await AppleTestRig.test(rig.fixture) { client in
                for sub in ["old.1", "old.2", "old.3"] {
                    let id = try AppleTestRig.userID(rig.fixture, try await AppleTestRig.signIn(client, rig.fixture, subject: sub, code: nil))
                    users.withLock { $0[sub] = id }
                }
            }
            let known = users.withLock { $0 }
            rig.apple.state.withLock { state in
                state.migration = [
                    "old.1": ("t.1", "new.1", "n1@privaterelay.appleid.com"), "old.2": ("t.2", "new.2", "n2@privaterelay.appleid.com"),
                    "old.3": ("t.3", "new.3", "n3@privaterelay.appleid.com"),
                ]
                state.migrationThrottles = 2
            }
            let transfer = Self.transfer(rig)
            let logger = Logger(label: "test")
            let exported = try await transfer.export(target: "NEWTEAM123", logger: logger)
            #expect(exported == AppleTeamTransfer.Progress(done: 3, failed: 0, left: 0))
            #expect(try await rig.fixture.count("identities WHERE transfer_sub IS NOT NULL AND transfer_target = 'NEWTEAM123'") == 3)
            #expect(try await transfer.export(target: "NEWTEAM123", logger: logger).done == 0, "a re-run skips what is done")

            // old.3 signs in under the new team before the import: re-keyed at sign-in.
            try await AppleTestRig.test(rig.fixture) { client in
                let token = try rig.fixture.apple.identityToken(subject: "new.3", overrides: ["transfer_sub": "t.3"])
                let response = try await client.postJSON("/auth/apple/exchange", ["id_token": token])
                #expect(try AppleTestRig.userID(rig.fixture, response.json) == known["old.3"])
            }
            // old.2's user has no address of its own (as if its Apple identity never shared one).
            try await rig.fixture.pool.query("UPDATE users SET email = NULL WHERE id = $1", [known["old.2"]!])
            let imported = try await transfer.importIdentities(logger: logger)
            #expect(imported.done == 2 && imported.failed == 0)
            #expect(try await AppleTransferStore(pool: rig.fixture.pool).stages() == AppleTeamTransfer.Stages(notExported: 0, exported: 0, rekeyed: 3))
            // The receiving team's relay address on the identity, and on the user when the old one
            // was the user's, before they sign in again; a user without an address gets none.
            for (old, address, userAddress) in [
                ("old.1", "n1@privaterelay.appleid.com", "n1@privaterelay.appleid.com"), ("old.2", "n2@privaterelay.appleid.com", nil),
            ] {
                let row = try #require(try await rig.fixture.pool.query(
                    "SELECT u.email AS user_email, i.email AS identity_email FROM users u JOIN identities i ON i.user_id = u.id WHERE u.id = $1",
                    [known[old]!]).single)
                #expect(try row.decodeIfPresent(String.self, column: "user_email") == userAddress, "\(old)")
                #expect(try row.decodeIfPresent(String.self, column: "identity_email") == address, "\(old)")
            }
            try await AppleTestRig.test(rig.fixture) { client in
                for (old, new) in [("old.1", "new.1"), ("old.2", "new.2")] {
                    let tokens = try await AppleTestRig.signIn(client, rig.fixture, subject: new, code: nil)
                    #expect(try AppleTestRig.userID(rig.fixture, tokens) == known[old], "\(new) is \(old)'s user")
                }
            }
            #expect(try await rig.fixture.count("users") == 3)
        }
    }

    @Test("an identity Apple will not translate fails the run and stays for the next one")
    func failuresStay() async throws {
        try await AppleTestRig.run { rig in
            try await AppleTestRig.test(rig.fixture) { client in
                _ = try await AppleTestRig.signIn(client, rig.fixture, subject: "old.known", code: nil)
                _ = try await AppleTestRig.signIn(client, rig.fixture, subject: "old.unknown", code: nil)
            }
            rig.apple.state.withLock { $0.migration = ["old.known": ("t.k", "new.k", "k@privaterelay.appleid.com")] }
            let transfer = Self.transfer(rig)
            let first = try await transfer.export(target: "NEWTEAM123", logger: Logger(label: "test"))
            #expect(first.done == 1 && first.failed == 1)
            rig.apple.state.withLock { $0.migration["old.unknown"] = ("t.u", "new.u", "u@privaterelay.appleid.com") }
            let second = try await transfer.export(target: "NEWTEAM123", logger: Logger(label: "test"))
            #expect(second.done == 1 && second.failed == 0)
        }
    }
}

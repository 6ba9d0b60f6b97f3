import Foundation
@testable import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// What providers' security events change, one delivery per transaction (docs/design.md, "Security events"; docs/reference.md,
/// "Apple notifications", "Google's account-protection events" and "Facebook's callbacks"): a delivery's id is recorded once
/// per sender with its effects, so a redelivery changes nothing twice and a failed one is applied again. The contract of
/// `SecurityEventStoring` and its `SecurityEventChanges`, held by `SecurityEventStore` over PostgreSQL; `FakeSecurityEventStore`,
/// which the decision tests use, holds the ids and identity lookups it models too (`StoreBackend`), the changes PostgreSQL alone.
@Suite("Security event storage contract, PostgreSQL and in memory (design: Security events)")
struct SecurityEventStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    struct Rollback: Error {}

    static func identity(_ provider: String, _ subject: String) -> ExternalIdentity {
        ExternalIdentity(provider: provider, subject: subject, audience: "\(provider)-client")
    }

    static func signIn(_ pool: ConnectionPool, _ identity: ExternalIdentity, at time: Date = now) async throws -> SignIn {
        try await SignInStore(pool: pool, clock: ManualClock(time), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            .signIn(SignInRequest(identity: identity, clientID: "clanboards-mobile", scopes: ["openid"]))
    }

    /// Runs `body` with the store of `backend` and a way to give an identity a user: signed in on PostgreSQL, seeded in
    /// the fake's `users`.
    static func withStore(
        _ backend: StoreBackend, _ body: (any SecurityEventStoring, _ known: (ExternalIdentity) async throws -> UUID) async throws -> Void
    ) async throws {
        switch backend {
        case .postgres:
            try await TestCluster.withMigratedPool(size: 4) { pool in
                try await body(SecurityEventStore(pool: pool)) { identity in try await Self.signIn(pool, identity).user.id }
            }
        case .memory:
            let store = FakeSecurityEventStore()
            try await body(store) { identity in
                let userID = UUID()
                store.users["\(identity.provider)/\(identity.subject)"] = userID
                return userID
            }
        }
    }

    /// The session's state: `live`, or the reason it was revoked with.
    static func session(_ pool: ConnectionPool, _ id: UUID) async throws -> String {
        let found = try await pool.query(
            "SELECT CASE WHEN revoked_at IS NULL THEN 'live' ELSE revoked_reason END AS state FROM sessions WHERE id = $1", [id]).single
        let row = try #require(found)
        return try row.decode(String.self, column: "state")
    }

    /// The identity's sign-in state: `enabled`, or `disabled <reason> at <seconds after now>`.
    static func status(_ pool: ConnectionPool, _ identity: ExternalIdentity) async throws -> String {
        let found = try await pool.query(
            "SELECT disabled_at, disabled_reason FROM identities WHERE provider = $1 AND subject = $2",
            [identity.provider, identity.subject]).single
        let row = try #require(found)
        guard let disabledAt = try row.decodeIfPresent(Date.self, column: "disabled_at") else { return "enabled" }
        let reason = try row.decodeIfPresent(String.self, column: "disabled_reason") ?? "-"
        return "disabled \(reason) at \(Int(disabledAt.timeIntervalSince(Self.now)))"
    }

    /// The rows of `table` whose `column` is `userID`.
    static func count(_ pool: ConnectionPool, _ table: String, _ userID: UUID, column: String = "user_id") async throws -> Int {
        try await pool.query("SELECT count(*) AS n FROM \(table) WHERE \(column) = $1", [userID]).single?
            .decode(Int.self, column: "n") ?? -1
    }

    @Test("a delivery's id is recorded once per sender: true the first time, false after, in that transaction and later ones",
          arguments: StoreBackend.allCases)
    func recordedOnce(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store, _ in
            let first = try await store.inTransaction { changes -> [Bool] in
                [
                    try changes.recordOnce(sender: "google", id: "jti-1", types: "sessions-revoked", now: Self.now),
                    try changes.recordOnce(sender: "google", id: "jti-1", types: "sessions-revoked", now: Self.now),
                ]
            }
            #expect(first == [true, false])
            let later = Self.now.addingTimeInterval(60)
            let redelivered = try await store.inTransaction { changes -> [Bool] in
                [
                    try changes.recordOnce(sender: "google", id: "jti-1", types: "sessions-revoked", now: later),
                    try changes.recordOnce(sender: "apple", id: "jti-1", types: "consent-revoked", now: later),
                    try changes.recordOnce(sender: "google", id: "jti-2", types: "sessions-revoked", now: later),
                ]
            }
            #expect(redelivered == [false, true, true], "an id is unique to its sender only")
        }
    }

    @Test("userID answers the user with that identity, and nil for an identity nobody has", arguments: StoreBackend.allCases)
    func userOfIdentity(backend: StoreBackend) async throws {
        try await Self.withStore(backend) { store, known in
            let alice = try await known(Self.identity("google", "g-alice"))
            let bob = try await known(Self.identity("google", "g-bob"))
            #expect(alice != bob)
            let found = try await store.inTransaction { changes -> [UUID?] in
                [
                    try changes.userID(provider: "google", subject: "g-alice"),
                    try changes.userID(provider: "google", subject: "g-bob"),
                    try changes.userID(provider: "google", subject: "g-nobody"),
                    try changes.userID(provider: "apple", subject: "g-alice"),
                ]
            }
            #expect(found == [alice, bob, nil, nil])
        }
    }

    @Test("a delivery whose changes throw keeps none of them, its id included: the redelivery is applied")
    func failedDeliveryKeepsNothing() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any SecurityEventStoring = SecurityEventStore(pool: pool)
            let google = Self.identity("google", "g-rollback")
            let user = try await Self.signIn(pool, google)
            let userID = user.user.id
            var rolledBack = false
            do {
                _ = try await store.inTransaction { changes -> Bool in
                    _ = try changes.recordOnce(sender: "google", id: "jti-failed", types: "account-disabled", now: Self.now)
                    try changes.revokeSessions(userID: userID, begunBy: Self.now, reason: "sessions-revoked", now: Self.now)
                    try changes.disable(provider: "google", subject: "g-rollback", reason: "hijacking", at: Self.now)
                    throw Rollback()
                }
            } catch is Rollback {
                rolledBack = true
            }
            #expect(rolledBack)
            let session = try await Self.session(pool, user.sessionID)
            #expect(session == "live")
            let status = try await Self.status(pool, google)
            #expect(status == "enabled")
            let redelivered = try await store.inTransaction { changes in
                try changes.recordOnce(sender: "google", id: "jti-failed", types: "account-disabled", now: Self.now.addingTimeInterval(60))
            }
            #expect(redelivered, "the failed delivery's id was not kept")
        }
    }

    @Test("revokeSessions revokes the user's live sessions begun at or before the time, through one provider if named; no other user's")
    func revokeSessionsBegunBy() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any SecurityEventStoring = SecurityEventStore(pool: pool)
            let google = Self.identity("google", "g-sessions")
            let atTime = try await Self.signIn(pool, google)
            let userID = atTime.user.id
            let after = try await Self.signIn(pool, google, at: Self.now.addingTimeInterval(60))
            let facebook = Self.identity("facebook", "fb-sessions")
            let linked = try await AccountIdentitiesStore(pool: pool)
                .link(facebook, userID: userID, sessionID: atTime.sessionID, now: Self.now)
            #expect(linked == .linked)
            let viaFacebook = try await Self.signIn(pool, facebook)
            #expect(viaFacebook.user.id == userID && after.user.id == userID)
            let stranger = try await Self.signIn(pool, Self.identity("google", "g-stranger"))
            let revokedAt = Self.now.addingTimeInterval(120)

            try await store.inTransaction { changes in
                try changes.revokeSessions(
                    userID: userID, through: "facebook", begunBy: Self.now.addingTimeInterval(60), reason: "deauthorized", now: revokedAt)
            }
            let afterFacebook = try await [
                Self.session(pool, atTime.sessionID), Self.session(pool, after.sessionID), Self.session(pool, viaFacebook.sessionID),
            ]
            #expect(afterFacebook == ["live", "live", "deauthorized"], "only the sessions begun through that provider")

            try await store.inTransaction { changes in
                try changes.revokeSessions(userID: userID, begunBy: Self.now, reason: "sessions-revoked", now: revokedAt)
            }
            let afterAll = try await [
                Self.session(pool, atTime.sessionID), Self.session(pool, after.sessionID),
                Self.session(pool, viaFacebook.sessionID), Self.session(pool, stranger.sessionID),
            ]
            #expect(afterAll == ["sessions-revoked", "live", "deauthorized", "live"],
                    "begun at the time: revoked; begun after: a new sign-in; revoked before: kept as it was; another user's: untouched")
        }
    }

    @Test("disable and enable apply in the events' order: one delivered late never undoes a later one; a hijacking refuses sign-in")
    func disableAndEnable() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any SecurityEventStoring = SecurityEventStore(pool: pool)
            let google = Self.identity("google", "g-disabled")
            let neighbour = Self.identity("google", "g-neighbour")
            _ = try await Self.signIn(pool, google)
            _ = try await Self.signIn(pool, neighbour)

            try await store.inTransaction { changes in
                try changes.disable(provider: "google", subject: "g-disabled", reason: "hijacking", at: Self.now.addingTimeInterval(10))
            }
            let disabled = try await Self.status(pool, google)
            #expect(disabled == "disabled hijacking at 10")
            var refused = false
            do {
                _ = try await Self.signIn(pool, google, at: Self.now.addingTimeInterval(12))
            } catch is IdentityDisabled {
                refused = true
            }
            #expect(refused, "an identity disabled for hijacking signs nobody in")

            try await store.inTransaction { changes in
                try changes.enable(provider: "google", subject: "g-disabled", at: Self.now.addingTimeInterval(5))
            }
            let lateEnable = try await Self.status(pool, google)
            #expect(lateEnable == "disabled hijacking at 10", "an enable older than the disable changes nothing")

            try await store.inTransaction { changes in
                try changes.enable(provider: "google", subject: "g-disabled", at: Self.now.addingTimeInterval(20))
            }
            let enabled = try await Self.status(pool, google)
            #expect(enabled == "enabled")

            try await store.inTransaction { changes in
                try changes.disable(provider: "google", subject: "g-disabled", reason: "bulk-account", at: Self.now.addingTimeInterval(15))
            }
            let lateDisable = try await Self.status(pool, google)
            #expect(lateDisable == "enabled", "a disable older than the enable changes nothing")
            let neighbourStatus = try await Self.status(pool, neighbour)
            #expect(neighbourStatus == "enabled")
        }
    }

    @Test("unlink removes the identity and says whether its user keeps another; deleteAccount deletes the user once, as deletion does")
    func unlinkAndDelete() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store: any SecurityEventStoring = SecurityEventStore(pool: pool, noticeProviders: ["facebook"])
            let google = Self.identity("google", "g-unlink")
            let kept = try await Self.signIn(pool, google)
            let keptID = kept.user.id
            let linked = try await AccountIdentitiesStore(pool: pool)
                .link(Self.identity("facebook", "fb-unlink"), userID: keptID, sessionID: kept.sessionID, now: Self.now)
            #expect(linked == .linked)

            let unlinked = try await store.inTransaction { changes -> [Bool] in
                [
                    try changes.unlink(provider: "google", subject: "g-unlink", userID: keptID),
                    try changes.unlink(provider: "facebook", subject: "fb-unlink", userID: keptID),
                ]
            }
            #expect(unlinked == [true, false], "Facebook's left after Google's; none after Facebook's")
            let identitiesLeft = try await Self.count(pool, "identities", keptID)
            #expect(identitiesLeft == 0)
            let userLeft = try await Self.count(pool, "users", keptID, column: "id")
            #expect(userLeft == 1, "unlinking deletes no user")

            let viaFacebook = try await Self.signIn(pool, Self.identity("facebook", "fb-delete"))
            let viaGoogle = try await Self.signIn(pool, Self.identity("google", "g-delete"))
            let holdToken = "INSERT INTO apple_tokens (user_id, client_id, sealed, created_at) VALUES ($1, $2, $3, $4)"
            for user in [viaFacebook.user.id, viaGoogle.user.id] {
                try await pool.query(holdToken, [user, "com.example.app", [UInt8]([1, 2, 3]), Self.now])
            }
            let facebookID = viaFacebook.user.id
            let googleID = viaGoogle.user.id
            let deletions = try await store.inTransaction { changes -> [Bool] in
                [
                    try changes.deleteAccount(userID: facebookID, reason: .providerDataDeletion, revokeHeldTokens: false, now: Self.now),
                    try changes.deleteAccount(userID: googleID, reason: .googleAccountPurged, revokeHeldTokens: true, now: Self.now),
                ]
            }
            #expect(deletions == [true, true])
            let again = try await store.inTransaction { changes in
                try changes.deleteAccount(userID: facebookID, reason: .providerDataDeletion, revokeHeldTokens: false, now: Self.now)
            }
            #expect(!again, "gone already")
            for userID in [facebookID, googleID] {
                let users = try await Self.count(pool, "users", userID, column: "id")
                let sessions = try await Self.count(pool, "sessions", userID)
                let tokens = try await Self.count(pool, "apple_tokens", userID)
                #expect(users == 0 && sessions == 0 && tokens == 0)
            }
            let audit = try await AccountDeletionStore(pool: pool).deletion(userID: facebookID)
            #expect(audit?.reason == "provider data deletion")
            let revocations = try await [Self.count(pool, "apple_revocations", facebookID), Self.count(pool, "apple_revocations", googleID)]
            #expect(revocations == [0, 1], "held Apple tokens are queued for revocation only when asked")
            let notices = try await [Self.count(pool, "deletion_notices", facebookID), Self.count(pool, "deletion_notices", googleID)]
            #expect(notices == [1, 0], "a provider told of deletions is told")
            let survivor = try await Self.count(pool, "users", keptID, column: "id")
            #expect(survivor == 1)
        }
    }
}

import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing
import TestSupport

/// One person, several providers (docs/reference.md, "Linked identities"): the user's identities,
/// oldest link first, and linking or unlinking one, the database deciding races (an identity is
/// anyone's at most once, a user has at most one per provider, the last one stays). The contract of
/// `AccountIdentitiesStoring`, held by `AccountIdentitiesStore` over PostgreSQL (no in-memory store
/// exists); a proving session revoked or ended since its proof is `AccountChangeStoreTests`' part.
@Suite("Linked identities storage contract, PostgreSQL (reference: Linked identities)")
struct AccountIdentitiesStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func signIn(_ pool: ConnectionPool, _ request: SignInRequest, at time: Date = now) async throws -> SignIn {
        try await SignInStore(pool: pool, clock: ManualClock(time), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            .signIn(request)
    }

    static func identity(_ provider: String, _ subject: String, email: String? = nil, verified: Bool? = nil) -> ExternalIdentity {
        ExternalIdentity(provider: provider, subject: subject, audience: "\(provider)-client", email: email, emailVerified: verified)
    }

    /// The user holding `identity`, read from the table.
    static func owner(_ pool: ConnectionPool, _ identity: ExternalIdentity) async throws -> UUID? {
        try await pool.query("SELECT user_id FROM identities WHERE provider = $1 AND subject = $2", [identity.provider, identity.subject])
            .single?.decode(UUID.self, column: "user_id")
    }

    static func providers(_ pool: ConnectionPool, _ userID: UUID) async throws -> [String] {
        try await pool.query("SELECT provider FROM identities WHERE user_id = $1 ORDER BY provider", [userID]).rows
            .map { try $0.decode(String.self, column: "provider") }
    }

    static func rowCount(_ pool: ConnectionPool, _ table: String, _ userID: UUID) async throws -> Int {
        try await pool.query("SELECT count(*) AS n FROM \(table) WHERE user_id = $1", [userID]).single?.decode(Int.self, column: "n") ?? -1
    }

    /// `Unlinked` is not `Equatable`: its case, with the number of Apple tokens claimed.
    static func name(_ outcome: AccountIdentities.Unlinked) -> String {
        switch outcome {
        case .unlinked(let claimed): "unlinked(\(claimed.count))"
        case .notLinked: "notLinked"
        case .lastIdentity: "lastIdentity"
        case .sessionEnded: "sessionEnded"
        }
    }

    @Test("identities lists the user's identities oldest link first, each with its e-mail; nil unless the session is a live one of theirs")
    func listed() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AccountIdentitiesStore(pool: pool)
            let own = try await Self.signIn(pool, SampleSignIn.request(subject: "list.a"))
            let other = try await Self.signIn(pool, SampleSignIn.request(subject: "list.b", email: "b@example.com"))
            let userID = own.user.id
            let google = Self.identity("google", "g-list", email: "g@example.com", verified: false)
            let googleLinked = try await store.link(google, userID: userID, sessionID: own.sessionID, now: Self.now + 60)
            #expect(googleLinked == .linked)
            let facebook = Self.identity("facebook", "fb-list")
            let facebookLinked = try await store.link(facebook, userID: userID, sessionID: own.sessionID, now: Self.now + 120)
            #expect(facebookLinked == .linked)

            let listed = try await store.identities(userID: userID, sessionID: own.sessionID, now: Self.now + 180)
            let expected: [LinkedIdentity] = [
                LinkedIdentity(provider: "apple", email: "a@example.com", emailVerified: true, linkedAt: Self.now),
                LinkedIdentity(provider: "google", email: "g@example.com", emailVerified: false, linkedAt: Self.now + 60),
                LinkedIdentity(provider: "facebook", email: nil, emailVerified: nil, linkedAt: Self.now + 120),
            ]
            #expect(listed == expected, "oldest link first, not by name")
            let others = try await store.identities(userID: other.user.id, sessionID: other.sessionID, now: Self.now + 180)
            let othersExpected = [LinkedIdentity(provider: "apple", email: "b@example.com", emailVerified: true, linkedAt: Self.now)]
            #expect(others == othersExpected)

            let foreignSession = try await store.identities(userID: userID, sessionID: other.sessionID, now: Self.now + 180)
            #expect(foreignSession == nil, "another user's session")
            let unknown = try await store.identities(userID: userID, sessionID: UUID(), now: Self.now + 180)
            #expect(unknown == nil)
            let ended = try await store.identities(userID: userID, sessionID: own.sessionID, now: Self.now + 7200)
            #expect(ended == nil, "the session ended")
            let revocations = SessionRevocationStore(pool: pool)
            let wasRevoked = try await revocations.revoke(sessionID: own.sessionID, reason: "test", at: Self.now + 180)
            #expect(wasRevoked)
            let revoked = try await store.identities(userID: userID, sessionID: own.sessionID, now: Self.now + 180)
            #expect(revoked == nil, "the session was revoked")
        }
    }

    @Test("link: a new identity links; the user's own again changes nothing; another's is in use, kept; a second of one provider refused")
    func linkOutcomes() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AccountIdentitiesStore(pool: pool)
            let own = try await Self.signIn(pool, SampleSignIn.request(subject: "link.a"))
            let other = try await Self.signIn(pool, SampleSignIn.request(subject: "link.b"))
            let google = Self.identity("google", "g-1", email: "one@example.com", verified: true)

            let first = try await store.link(google, userID: own.user.id, sessionID: own.sessionID, now: Self.now)
            #expect(first == .linked)
            var reported = google
            reported.email = "changed@example.com"
            let again = try await store.link(reported, userID: own.user.id, sessionID: own.sessionID, now: Self.now + 60)
            #expect(again == .alreadyLinked)
            let taken = try await store.link(google, userID: other.user.id, sessionID: other.sessionID, now: Self.now + 60)
            #expect(taken == .inUse)
            let owner = try await Self.owner(pool, google)
            #expect(owner == own.user.id, "the other user keeps it")
            let secondGoogle = Self.identity("google", "g-2")
            let second = try await store.link(secondGoogle, userID: own.user.id, sessionID: own.sessionID, now: Self.now + 60)
            #expect(second == .providerTaken)
            let secondOwner = try await Self.owner(pool, secondGoogle)
            #expect(secondOwner == nil)

            let listed = try await store.identities(userID: own.user.id, sessionID: own.sessionID, now: Self.now + 120)
            let expected: [LinkedIdentity] = [
                LinkedIdentity(provider: "apple", email: "a@example.com", emailVerified: true, linkedAt: Self.now),
                LinkedIdentity(provider: "google", email: "one@example.com", emailVerified: true, linkedAt: Self.now),
            ]
            #expect(listed == expected, "linked once, as first linked: a repeat changes nothing")
            let others = try await Self.providers(pool, other.user.id)
            #expect(others == ["apple"])
        }
    }

    @Test("races are the database's: of eight links of one identity or of one provider, one wins; unlinking all at once leaves one")
    func races() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AccountIdentitiesStore(pool: pool)
            var signedIn: [(userID: UUID, sessionID: UUID)] = []
            for index in 0..<8 {
                let signIn = try await Self.signIn(pool, SampleSignIn.request(subject: "race.\(index)"))
                signedIn.append((signIn.user.id, signIn.sessionID))
            }
            let users = signedIn
            let google = Self.identity("google", "g-contested")
            let outcomes = try await withThrowingTaskGroup(of: (UUID, AccountIdentities.Linked).self) { group in
                for user in users {
                    group.addTask {
                        let outcome = try await store.link(google, userID: user.userID, sessionID: user.sessionID, now: Self.now)
                        return (user.userID, outcome)
                    }
                }
                return try await group.reduce(into: [(UUID, AccountIdentities.Linked)]()) { $0.append($1) }
            }
            let winners = outcomes.filter { $0.1 == .linked }.map { $0.0 }
            #expect(winners.count == 1)
            #expect(outcomes.filter { $0.1 == .inUse }.count == 7)
            let holder = try await Self.owner(pool, google)
            #expect(holder != nil && holder == winners.first)

            let user = users[7]
            let accounts = (0..<8).map { Self.identity("facebook", "fb-\($0)") }
            let answers = try await withThrowingTaskGroup(of: AccountIdentities.Linked.self) { group in
                for account in accounts {
                    group.addTask { try await store.link(account, userID: user.userID, sessionID: user.sessionID, now: Self.now) }
                }
                return try await group.reduce(into: [AccountIdentities.Linked]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == .linked }.count == 1)
            #expect(answers.filter { $0 == .providerTaken }.count == 7)
            let providers = try await Self.providers(pool, user.userID)
            #expect(providers.filter { $0 == "facebook" }.count == 1)

            // Every identity of a user unlinked at once: the others go, the last stays.
            var unlinkers: [(userID: UUID, sessionID: UUID)] = []
            for index in 0..<4 {
                let signIn = try await Self.signIn(pool, SampleSignIn.request(subject: "unlink.race.\(index)"))
                for identity in [Self.identity("google", "g-race-\(index)"), Self.identity("facebook", "fb-race-\(index)")] {
                    let linked = try await store.link(identity, userID: signIn.user.id, sessionID: signIn.sessionID, now: Self.now)
                    #expect(linked == .linked)
                }
                unlinkers.append((signIn.user.id, signIn.sessionID))
            }
            let owners = unlinkers
            let unlinkOutcomes = try await withThrowingTaskGroup(of: (UUID, String).self) { group in
                for owner in owners {
                    for provider in ["apple", "google", "facebook"] {
                        group.addTask {
                            let outcome = try await store.unlink(
                                provider: provider, userID: owner.userID, sessionID: owner.sessionID, now: Self.now)
                            return (owner.userID, Self.name(outcome))
                        }
                    }
                }
                return try await group.reduce(into: [(UUID, String)]()) { $0.append($1) }
            }
            for owner in owners {
                let unlinked = unlinkOutcomes.filter { $0.0 == owner.userID }.map { $0.1 }.sorted()
                #expect(unlinked == ["lastIdentity", "unlinked(0)", "unlinked(0)"])
                let kept = try await Self.providers(pool, owner.userID)
                #expect(kept.count == 1, "two unlinks at once never leave none")
            }
        }
    }

    @Test("unlink: refused when not linked or the last; removes that identity only, queues held Apple tokens and a notice; ends no session")
    func unlinkOutcomes() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let store = AccountIdentitiesStore(pool: pool, custodyProvider: "apple", noticeProviders: ["facebook"])
            let apple = try await Self.signIn(pool, SampleSignIn.request(subject: "unlink.a"))
            let userID = apple.user.id
            let google = Self.identity("google", "g-unlink")
            let facebook = Self.identity("facebook", "fb-unlink")
            for identity in [google, facebook] {
                let linked = try await store.link(identity, userID: userID, sessionID: apple.sessionID, now: Self.now)
                #expect(linked == .linked)
            }
            // The user signs in with Google too: a session begun through that identity.
            let viaGoogle = try await Self.signIn(pool, SignInRequest(identity: google, clientID: "clanboards-mobile", scopes: ["openid"]))
            #expect(viaGoogle.user.id == userID)
            let stranger = try await Self.signIn(pool, SampleSignIn.request(subject: "unlink.b"))
            let holdToken = "INSERT INTO apple_tokens (user_id, client_id, sealed, created_at) VALUES ($1, $2, $3, $4)"
            try await pool.query(holdToken, [userID, "com.example.app", [UInt8]([1, 2, 3]), Self.now])
            try await pool.query(holdToken, [stranger.user.id, "com.example.app", [UInt8]([4, 5, 6]), Self.now])
            let later = Self.now + 60

            let notLinked = try await store.unlink(provider: "microsoft", userID: userID, sessionID: apple.sessionID, now: later)
            #expect(Self.name(notLinked) == "notLinked")
            let last = try await store.unlink(provider: "apple", userID: stranger.user.id, sessionID: stranger.sessionID, now: later)
            #expect(Self.name(last) == "lastIdentity")
            let strangerProviders = try await Self.providers(pool, stranger.user.id)
            #expect(strangerProviders == ["apple"])

            let appleGone = try await store.unlink(provider: "apple", userID: userID, sessionID: apple.sessionID, now: later)
            guard case .unlinked(let claimed) = appleGone else {
                Issue.record("Apple not unlinked: \(Self.name(appleGone))")
                return
            }
            #expect(claimed.map(\.userID) == [userID])
            #expect(claimed.map(\.clientID) == ["com.example.app"])
            #expect(claimed.map(\.sealed) == [[1, 2, 3]])
            let held = try await Self.rowCount(pool, "apple_tokens", userID)
            #expect(held == 0, "handed over to the revocation queue")
            let queued = try await Self.rowCount(pool, "apple_revocations", userID)
            #expect(queued == 1)
            let strangerHeld = try await Self.rowCount(pool, "apple_tokens", stranger.user.id)
            #expect(strangerHeld == 1)
            let afterApple = try await Self.providers(pool, userID)
            #expect(afterApple == ["facebook", "google"])

            // The Apple session still proves: unlinking signs no session out.
            let facebookGone = try await store.unlink(provider: "facebook", userID: userID, sessionID: apple.sessionID, now: later)
            #expect(Self.name(facebookGone) == "unlinked(0)")
            let notices = try await pool.query("SELECT provider, subject FROM deletion_notices WHERE user_id = $1", [userID]).rows
                .map { row -> String in
                    let provider = try row.decode(String.self, column: "provider")
                    let subject = try row.decode(String.self, column: "subject")
                    return "\(provider) \(subject)"
                }
            #expect(notices == ["facebook fb-unlink"], "only a provider told of deletions is told")
            let lastLeft = try await store.unlink(provider: "google", userID: userID, sessionID: viaGoogle.sessionID, now: later)
            #expect(Self.name(lastLeft) == "lastIdentity")
            let left = try await Self.providers(pool, userID)
            #expect(left == ["google"])
            let live = try await AccountSessionsStore(pool: pool).live(userID: userID, now: later)
            #expect(Set(live.map(\.sessionID)) == Set([apple.sessionID, viaGoogle.sessionID]))
        }
    }
}

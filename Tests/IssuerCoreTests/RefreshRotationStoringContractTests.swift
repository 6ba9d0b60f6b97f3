import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The contract of `RefreshRotationStoring`, held by `RefreshGrantStores` over PostgreSQL
/// (docs/reference.md, "Refresh tokens and sessions"). The rotation statement is the one place the
/// rules are checked (`RefreshVerdict`): each rule, the order in which they apply when a token
/// breaks several, and that only a `rotated` verdict changes what is stored. The decision tests'
/// fake (`RefreshTokenGrantTests.Stores`) scripts a verdict per test instead of holding state, so
/// this suite runs against PostgreSQL alone and shows that every verdict a script may answer is
/// one the statement gives.
@Suite("Refresh rotation storage contract, PostgreSQL (reference: Refresh tokens and sessions)")
struct RefreshRotationStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The stored state of one token and its session, relative to `now`.
    struct Stored: Sendable {
        var clientID = "app"
        var scope = "openid email profile"
        var revoked = false
        var sessionExpiresIn: TimeInterval = 86_400
        var tokenExpiresIn: TimeInterval = 3_600
        var spent = false
        /// The DPoP key the session is bound to (docs/reference.md, "DPoP").
        var dpopJKT: String? = nil
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var stored = Stored()
        var clientID = "app"
        var scopes: [String]? = nil
        var dpopThumbprint: String? = nil
        let expected: RefreshVerdict
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "rotated now", expected: .rotated),
        Case(name: "narrower scope", scopes: ["openid"], expected: .rotated),
        Case(name: "another client", clientID: "other", expected: .anotherClient),
        Case(name: "wider scope", scopes: ["openid", "admin"], expected: .scopeNotGranted),
        Case(name: "revoked session", stored: Stored(revoked: true), expected: .revoked),
        Case(name: "session at its maximum age", stored: Stored(sessionExpiresIn: 0), expected: .sessionExpired),
        Case(name: "expired, never spent", stored: Stored(tokenExpiresIn: 0), expected: .expired),
        Case(name: "spent", stored: Stored(spent: true), expected: .spent),
        Case(name: "spent and expired is spent (a late retry is still a reuse)",
             stored: Stored(tokenExpiresIn: -1, spent: true), expected: .spent),
        Case(name: "revoked wins over spent", stored: Stored(revoked: true, spent: true), expected: .revoked),
        Case(name: "session end wins over token expiry", stored: Stored(sessionExpiresIn: -1, tokenExpiresIn: -1),
             expected: .sessionExpired),
        Case(name: "another client's token is refused before its scope is considered",
             clientID: "other", scopes: ["admin"], expected: .anotherClient),
        // A dead session is said first, so that another client or a wider scope on a spent token
        // means a live session's token was reused (RefreshOutcome calls that theft).
        Case(name: "a revoked session is refused before a wider scope is considered", stored: Stored(revoked: true),
             scopes: ["admin"], expected: .revoked),
        Case(name: "a revoked session is refused before its client is considered", stored: Stored(revoked: true, spent: true),
             clientID: "other", expected: .revoked),
        Case(name: "a session past its maximum age is refused before a wider scope", stored: Stored(sessionExpiresIn: 0, spent: true),
             scopes: ["admin"], expected: .sessionExpired),
        // docs/reference.md, "DPoP": a bound session refreshes only with its key's proof, decided
        // before the token's state, so a spent token without the key is never taken for theft.
        Case(name: "bound session, no proof", stored: Stored(dpopJKT: "key-a"), expected: .keyMismatch),
        Case(name: "bound session, another key's proof", stored: Stored(dpopJKT: "key-a"), dpopThumbprint: "key-b",
             expected: .keyMismatch),
        Case(name: "bound session, its key's proof", stored: Stored(dpopJKT: "key-a"), dpopThumbprint: "key-a", expected: .rotated),
        Case(name: "bound session, spent token, no proof: refused, not spent", stored: Stored(spent: true, dpopJKT: "key-a"),
             expected: .keyMismatch),
        Case(name: "bound session, spent token, its key: spent (the retry or theft rule applies)",
             stored: Stored(spent: true, dpopJKT: "key-a"), dpopThumbprint: "key-a", expected: .spent),
        Case(name: "bound session revoked is revoked first", stored: Stored(revoked: true, dpopJKT: "key-a"), expected: .revoked),
        Case(name: "bound session: another client without the key is a key mismatch", stored: Stored(dpopJKT: "key-a"),
             clientID: "other", expected: .keyMismatch),
        Case(name: "unbound session with a proof rotates", dpopThumbprint: "key-a", expected: .rotated),
    ]

    /// One pool for every case of the suite, which run side by side with hundreds of other tests:
    /// the deadline only ends a hung call, so a case that waits its turn under load is not failed
    /// as if the database had not answered.
    static let pool = Task { () throws -> ConnectionPool in
        let pool = try await TestCluster.freshPool(size: 6, timeout: .seconds(300))
        try await Migrator(pool: pool).migrate(try IssuerMigrations.builtIn())
        return pool
    }

    /// Stores a user, a session and one token as `stored` says; answers the token's hash.
    static func store(_ stored: Stored, pool: ConnectionPool) async throws -> [UInt8] {
        let user = UUID()
        let session = UUID()
        let hash = (0..<32).map { _ in UInt8.random(in: 0...255) }
        try await pool.transaction { connection in
            try connection.query("INSERT INTO users (id, email) VALUES ($1, 'a@example.com')", [user])
            try connection.query("""
                INSERT INTO sessions (id, user_id, client_id, scope, auth_time, created_at, last_used_at, expires_at, revoked_at, dpop_jkt)
                VALUES ($1, $2, $3, $4, $5, $5, $5, $6, $7, $8)
                """, [session, user, stored.clientID, stored.scope, now.addingTimeInterval(-600),
                      now.addingTimeInterval(stored.sessionExpiresIn), stored.revoked ? now.addingTimeInterval(-60) : nil,
                      stored.dpopJKT])
            try connection.query("""
                INSERT INTO refresh_tokens (token_hash, session_id, generation, created_at, expires_at, spent_at, successor_hash)
                VALUES ($1, $2, 0, $3, $4, $5, $6)
                """, [hash, session, now.addingTimeInterval(-600), now.addingTimeInterval(stored.tokenExpiresIn),
                      stored.spent ? now.addingTimeInterval(-30) : nil,
                      stored.spent ? Array(repeating: UInt8(9), count: 32) : nil])
        }
        return hash
    }

    @Test(arguments: cases)
    func verdict(_ testCase: Case) async throws {
        let pool = try await Self.pool.value
        let hash = try await Self.store(testCase.stored, pool: pool)
        let before = try await pool.query("SELECT spent_at, successor_hash FROM refresh_tokens WHERE token_hash = $1", [hash]).single
        let successor = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let record = try #require(try await RefreshRotationStore(pool: pool).rotate(
            tokenHash: hash, successorHash: successor, clientID: testCase.clientID, requestedScopes: testCase.scopes,
            now: Self.now, successorExpiresAt: Self.now.addingTimeInterval(3_600), dpopThumbprint: testCase.dpopThumbprint))
        #expect(record.verdict == testCase.expected)
        #expect(record.dpopThumbprint == testCase.stored.dpopJKT)
        let successors = try await pool.query("SELECT count(*) AS count FROM refresh_tokens WHERE token_hash = $1", [successor])
            .single!.decode(Int.self, column: "count")
        let after = try await pool.query("SELECT spent_at, successor_hash FROM refresh_tokens WHERE token_hash = $1", [hash]).single
        if testCase.expected == .rotated {
            #expect(successors == 1)
            #expect(try after?.decodeIfPresent(Date.self, column: "spent_at") == Self.now)
        } else {
            #expect(successors == 0, "a refused refresh stores no successor")
            #expect(after?.values == before?.values, "a refused refresh changes nothing")
        }
    }

    @Test("every verdict the decision tests may script has a case here that the statement answers, but the replay, which it throws")
    func everyVerdictIsReachable() {
        // `verdict(_:)` shows the statement answering each case's verdict; `proofInTheStatement`
        // shows a replayed proof thrown as `DPoPProofReplayed` before any verdict is read.
        let unreached = Set(RefreshVerdict.allCases).subtracting(Self.cases.map(\.expected))
        #expect(unreached == [.proofReplayed])
    }

    @Test("revokeSession revokes the token's session: its next refresh is revoked and stores nothing; another session is untouched")
    func revokeSession() async throws {
        let pool = try await Self.pool.value
        let stores = RefreshGrantStores(rotation: RefreshRotationStore(pool: pool), revocation: SessionRevocationStore(pool: pool))
        let hash = try await Self.store(Stored(), pool: pool)
        let other = try await Self.store(Stored(), pool: pool)
        let sessionOf = { (hash: [UInt8]) async throws -> UUID in
            try #require(try await pool.query("SELECT session_id FROM refresh_tokens WHERE token_hash = $1", [hash]).single?
                .decode(UUID.self, column: "session_id"))
        }
        let session = try await sessionOf(hash)
        try await stores.revokeSession(session, reason: "refresh token reused", at: Self.now)
        let reason = try await pool.query("SELECT revoked_reason FROM sessions WHERE id = $1", [session]).single?
            .decodeIfPresent(String.self, column: "revoked_reason")
        #expect(reason == "refresh token reused")
        let refusedSuccessor = RefreshToken.generate().hash
        let refused = try await stores.rotate(
            tokenHash: hash, successorHash: refusedSuccessor, clientID: "app", requestedScopes: nil, now: Self.now,
            successorExpiresAt: Self.now.addingTimeInterval(3_600), dpopThumbprint: nil, dpopProof: nil, resendSince: nil)
        #expect(refused?.verdict == .revoked)
        let successors = try await pool.query(
            "SELECT count(*) AS count FROM refresh_tokens WHERE token_hash = $1", [refusedSuccessor]
        ).single?.decode(Int.self, column: "count")
        #expect(successors == 0)
        let untouched = try await stores.rotate(
            tokenHash: other, successorHash: RefreshToken.generate().hash, clientID: "app", requestedScopes: nil, now: Self.now,
            successorExpiresAt: Self.now.addingTimeInterval(3_600), dpopThumbprint: nil, dpopProof: nil, resendSince: nil)
        #expect(untouched?.verdict == .rotated)
        // A second revocation of a revoked session keeps the first reason.
        try await stores.revokeSession(session, reason: "another reason", at: Self.now.addingTimeInterval(60))
        let kept = try await pool.query("SELECT revoked_reason FROM sessions WHERE id = $1", [session]).single?
            .decodeIfPresent(String.self, column: "revoked_reason")
        #expect(kept == "refresh token reused")
    }

    @Test("an unknown hash answers no record")
    func unknown() async throws {
        let pool = try await Self.pool.value
        let record = try await RefreshRotationStore(pool: pool).rotate(
            tokenHash: Array(repeating: 1, count: 32), successorHash: Array(repeating: 2, count: 32), clientID: "app",
            requestedScopes: nil, now: Self.now, successorExpiresAt: Self.now)
        #expect(record == nil)
    }

    /// A verified proof of key `jkt` with `jti`, as the token endpoint hands it to the grant.
    static func proof(jkt: String = "key-a", jti: String, hash: UInt8 = 1) -> DPoPProof {
        DPoPProof(thumbprint: jkt, jwtID: jti, issuedAt: now, accessTokenHash: nil, nonce: nil, proofHash: Array(repeating: hash, count: 32))
    }

    @Test("the jti memory in the rotation statement: a fresh proof rotates and is remembered; its identical resend within the grace reaches the spent token's verdict; another proof with the jti, or a resend before the grace, is a replay that touches nothing")
    func proofInTheStatement() async throws {
        let pool = try await Self.pool.value
        let store = RefreshRotationStore(pool: pool)
        let hash = try await Self.store(Stored(dpopJKT: "key-a"), pool: pool)
        let jti = UUID().uuidString
        let rotate = { (proof: DPoPProof, resendSince: Date?) in
            try await store.rotate(
                tokenHash: hash, successorHash: Array(repeating: 3, count: 32), clientID: "app", requestedScopes: nil, now: Self.now,
                successorExpiresAt: Self.now.addingTimeInterval(3_600), dpopProof: proof, resendSince: resendSince)
        }
        #expect(try await rotate(Self.proof(jti: jti), Self.now.addingTimeInterval(-10))?.verdict == .rotated)
        let remembered = try await pool.query("SELECT count(*) AS count FROM dpop_proofs WHERE jkt = 'key-a' AND jti = $1", [jti])
        #expect(try remembered.single!.decode(Int.self, column: "count") == 1)

        #expect(try await rotate(Self.proof(jti: jti), Self.now.addingTimeInterval(-10))?.verdict == .spent)
        await #expect(throws: DPoPProofReplayed.self) { try await rotate(Self.proof(jti: jti, hash: 2), Self.now.addingTimeInterval(-10)) }
        await #expect(throws: DPoPProofReplayed.self) { try await rotate(Self.proof(jti: jti), nil) }

        // A replay is refused before the token is looked at: an unspent token stays unspent.
        let other = try await Self.store(Stored(dpopJKT: "key-a"), pool: pool)
        await #expect(throws: DPoPProofReplayed.self) {
            try await store.rotate(
                tokenHash: other, successorHash: Array(repeating: 4, count: 32), clientID: "app", requestedScopes: nil, now: Self.now,
                successorExpiresAt: Self.now.addingTimeInterval(3_600), dpopProof: Self.proof(jti: jti, hash: 5), resendSince: nil)
        }
        let spent = try await pool.query("SELECT spent_at FROM refresh_tokens WHERE token_hash = $1", [other]).single
        #expect(try spent?.decodeIfPresent(Date.self, column: "spent_at") == nil)
    }

    @Test("an unknown token with a fresh proof answers no record; with a replayed one, the replay")
    func unknownTokenWithProof() async throws {
        let pool = try await Self.pool.value
        let store = RefreshRotationStore(pool: pool)
        let jti = UUID().uuidString
        let rotate = { (hash: UInt8) in
            try await store.rotate(
                tokenHash: Array(repeating: 1, count: 32), successorHash: Array(repeating: 2, count: 32), clientID: "app",
                requestedScopes: nil, now: Self.now, successorExpiresAt: Self.now, dpopProof: Self.proof(jti: jti, hash: hash),
                resendSince: nil)
        }
        #expect(try await rotate(1) == nil)
        await #expect(throws: DPoPProofReplayed.self) { try await rotate(2) }
    }

    @Test("a refresh writes nothing to sessions; the session's last use is its newest token's issue time")
    func lastUsedIsDerived() async throws {
        let pool = try await Self.pool.value
        let hash = try await Self.store(Stored(), pool: pool)
        let sessionRow = { () async throws -> PostgresRow? in
            try await pool.query(
                "SELECT s.* FROM sessions s JOIN refresh_tokens r ON r.session_id = s.id WHERE r.token_hash = $1", [hash]).single
        }
        let before = try await sessionRow()
        let later = Self.now.addingTimeInterval(120)
        let record = try #require(try await RefreshRotationStore(pool: pool).rotate(
            tokenHash: hash, successorHash: (0..<32).map { _ in UInt8.random(in: 0...255) }, clientID: "app",
            requestedScopes: nil, now: later, successorExpiresAt: later.addingTimeInterval(3_600)))
        #expect(record.verdict == .rotated)
        #expect(try await sessionRow()?.values == before?.values)
        let userID: UUID = try #require(try await pool.query("SELECT user_id FROM sessions WHERE id = $1", [record.sessionID])
            .single?.decode(column: "user_id"))
        let summary = try #require(try await SessionDirectoryStore(pool: pool).sessions(userID: userID).first)
        #expect(summary.lastUsedAt == later)
        #expect(summary.generation == 1)
    }
}

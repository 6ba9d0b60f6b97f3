import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The contract of `SessionProofStoring`, held by `SessionProofStore` over PostgreSQL
/// (docs/reference.md, "Two proofs of one session"): what a presented refresh token says of its
/// session, in the refresh grant's order (revoked, then ended, then spent, then expired), read
/// without changing anything. No decision test fakes it (`SessionProofVerdictTests` decides from
/// records it builds), so this suite runs against PostgreSQL alone.
@Suite("Session proof storage contract, PostgreSQL (reference: Two proofs of one session)")
struct SessionProofStoringContractTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a token's record: current, then spent with its successor after a rotation, expired, ended, revoked first; nil if unknown")
    func records() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            // Tokens live 600 s, sessions 7200 s.
            let signInStore = SignInStore(
                pool: pool, clock: ManualClock(Self.now), refreshTokenTTL: .seconds(600), sessionMaxAge: .seconds(7200))
            let signIn = try await signInStore.signIn(SampleSignIn.request(subject: "proof.sub"))
            let token = try #require(signIn.refreshToken)
            let store = SessionProofStore(pool: pool)

            let current = try await store.proofRecord(tokenHash: token.hash, now: Self.now)
            #expect(current == SessionProofRecord(state: .current, sessionID: signIn.sessionID))
            let unknown = try await store.proofRecord(tokenHash: RefreshToken.generate().hash, now: Self.now)
            #expect(unknown == nil)
            let expired = try await store.proofRecord(tokenHash: token.hash, now: Self.now + 600)
            #expect(expired?.state == .expired)

            let successor = RefreshToken.generate()
            let rotated = try await RefreshRotationStore(pool: pool).rotate(
                tokenHash: token.hash, successorHash: successor.hash, clientID: SampleSignIn.request(subject: "x").clientID,
                requestedScopes: nil, now: Self.now + 60, successorExpiresAt: Self.now + 660)
            #expect(rotated?.verdict == .rotated)
            let spent = try await store.proofRecord(tokenHash: token.hash, now: Self.now + 120)
            let spentRecord = SessionProofRecord(
                state: .spent, sessionID: signIn.sessionID, spentAt: Self.now + 60, successorHash: successor.hash)
            #expect(spent == spentRecord)
            let spentLate = try await store.proofRecord(tokenHash: token.hash, now: Self.now + 6000)
            #expect(spentLate?.state == .spent, "spent wins over the token's own expiry")
            let spentEnded = try await store.proofRecord(tokenHash: token.hash, now: Self.now + 7200)
            #expect(spentEnded?.state == .sessionExpired, "the session's end wins over spent")
            let next = try await store.proofRecord(tokenHash: successor.hash, now: Self.now + 120)
            #expect(next?.state == .current)
            let sessionEnded = try await store.proofRecord(tokenHash: successor.hash, now: Self.now + 7200)
            #expect(sessionEnded?.state == .sessionExpired, "the session's end wins over the token's")

            _ = try await SessionRevocationStore(pool: pool).revoke(sessionID: signIn.sessionID, reason: "signed out", at: Self.now + 130)
            let revoked = try await store.proofRecord(tokenHash: successor.hash, now: Self.now + 140)
            #expect(revoked?.state == .revoked)
            let revokedEnded = try await store.proofRecord(tokenHash: token.hash, now: Self.now + 7200)
            #expect(revokedEnded?.state == .revoked, "revoked is said first")
            let unchanged = try await pool.query("SELECT count(*) AS count FROM refresh_tokens WHERE session_id = $1", [signIn.sessionID])
                .single?.decode(Int.self, column: "count")
            #expect(unchanged == 2, "reading a record writes nothing")
        }
    }
}

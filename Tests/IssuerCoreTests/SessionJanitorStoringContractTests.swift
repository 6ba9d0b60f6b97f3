import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

/// The contract of `SessionJanitorStoring`, held by `SessionJanitorStore` over PostgreSQL
/// (docs/reference.md, "Refresh tokens and sessions"): each batch deletes at most its limit of rows
/// of one kind past the cutoff, never a live row, and two janitors never count one row twice. The
/// batching tests' fake (`SessionJanitorBatchTests.FakeStore`) scripts its counts, so this suite
/// runs against PostgreSQL alone.
@Suite("Janitor storage contract, PostgreSQL (reference: Refresh tokens and sessions)")
struct SessionJanitorStoringContractTests {
    @Test("deletes expired sessions and tokens in batches, never a live row, and two janitors agree")
    func neverDeletesLiveRows() async throws {
        try await TestCluster.withMigratedPool(size: 4) { pool in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let shortLived = SignInStore(pool: pool, clock: clock, refreshTokenTTL: .seconds(60), sessionMaxAge: .seconds(120))
            for i in 0..<30 { _ = try await shortLived.signIn(SampleSignIn.request(subject: "old\(i % 3)")) }
            clock.advance(by: 10_000)
            let longLived = SignInStore(pool: pool, clock: clock, refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            var live: [UUID] = []
            for i in 0..<7 { live.append(try await longLived.signIn(SampleSignIn.request(subject: "new\(i)")).sessionID) }
            // A spent token whose own expiry lies ahead must stay: reuse detection needs it.
            try await pool.query("UPDATE refresh_tokens SET spent_at = $1 WHERE session_id = $2", [clock.now, live[0]])

            var configured = SessionJanitor(store: SessionJanitorStore(pool: pool))
            configured.batchSize = 4
            let janitor = configured
            let other = configured
            async let first = janitor.sweep(now: clock.now)
            async let second = other.sweep(now: clock.now)
            let (a, b) = try await (first, second)
            #expect(a.sessions + b.sessions == 30)
            #expect(a.refreshTokens + b.refreshTokens == 30)

            let remaining = try await pool.query("SELECT id FROM sessions").rows.map { try $0.decode(UUID.self, column: "id") }
            #expect(Set(remaining) == Set(live))
            #expect(try await pool.query("SELECT count(*) AS count FROM refresh_tokens").single!.decode(Int.self, column: "count") == 7)
            let again = try await janitor.sweep(now: clock.now)
            #expect(again.sessions == 0 && again.refreshTokens == 0, "nothing left to delete")
            // Just past expiry is still inside the safety margin.
            clock.advance(by: 7200 + 60)
            #expect(try await janitor.sweep(now: clock.now).sessions == 0)
            clock.advance(by: 3600)
            #expect(try await janitor.sweep(now: clock.now).sessions == 7)
        }
    }

    @Test("spent states and DPoP proofs: a batch deletes at most its limit of rows expired before the cutoff, never one at or after it",
          arguments: [
        ExpiredRows.spentAuthorizationStates, .dpopProofs,
    ])
    func batchOfOneKind(rows: ExpiredRows) async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let cutoff = Date(timeIntervalSince1970: 1_800_000_000)
            // Five rows expired a second before the cutoff, two at it, one after it.
            let expiries = Array(repeating: cutoff.addingTimeInterval(-1), count: 5) + [cutoff, cutoff, cutoff.addingTimeInterval(1)]
            for (index, expiry) in expiries.enumerated() {
                let hash = [UInt8](repeating: UInt8(index + 1), count: 32)
                switch rows {
                case .spentAuthorizationStates:
                    try await pool.query("INSERT INTO spent_authorization_states (state_hash, expires_at) VALUES ($1, $2)", [hash, expiry])
                default:
                    try await pool.query(
                        "INSERT INTO dpop_proofs (jkt, jti, proof_hash, seen_at, expires_at) VALUES ('key', $1, $2, $3, $3)",
                        ["jti-\(index)", hash, expiry])
                }
            }
            let table = rows == .spentAuthorizationStates ? "spent_authorization_states" : "dpop_proofs"
            let count = { () async throws -> Int in
                try #require(try await pool.query("SELECT count(*) AS count FROM \(table)").single?.decode(Int.self, column: "count"))
            }
            let store = SessionJanitorStore(pool: pool)
            let first = try await store.deleteExpired(rows, before: cutoff, limit: 3)
            #expect(first == 3)
            let second = try await store.deleteExpired(rows, before: cutoff, limit: 3)
            #expect(second == 2, "a short batch: only five were expired")
            let third = try await store.deleteExpired(rows, before: cutoff, limit: 3)
            #expect(third == 0)
            let left = try await count()
            #expect(left == 3, "the rows at and after the cutoff stay")
        }
    }
}

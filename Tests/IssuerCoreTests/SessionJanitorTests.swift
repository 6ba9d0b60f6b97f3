import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

@Suite("Janitor (reference: Refresh tokens and sessions)")
struct SessionJanitorTests {
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
}

import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Postgres
import Testing
import TestSupport

/// docs/reference.md, "Apple token custody": ending a pending code tells a row another process
/// settled (nothing to revoke here) from a user deleted meanwhile (revoke what was redeemed).
@Suite("Apple custody store, against PostgreSQL")
struct AppleCustodyStoreTests {
    @Test("keepPending: kept for the owner; a row another process ended is settled elsewhere; a row gone with its user is a user gone")
    func pendingOutcomes() async throws {
        try await TestCluster.withMigratedPool(size: 2) { pool in
            let store = AppleCustodyStore(pool: pool, provider: "apple")
            let signIns = SignInStore(pool: pool, clock: SystemClock(), refreshTokenTTL: .seconds(3600), sessionMaxAge: .seconds(7200))
            let now = Date()
            func pending(for subject: String) async throws -> (AppleTokenCustody.Pending, UUID) {
                let user = try await signIns.signIn(SampleSignIn.request(subject: subject)).user.id
                try await store.queue(
                    sealedCode: [1, 2, 3], userID: user, clientID: "com.example.app", redirectURI: nil, received: now,
                    expiresAt: now.addingTimeInterval(300), nextAttempt: now, reason: "test")
                let claimed = try #require(try await store.claimNext(now: now.addingTimeInterval(1), leaseEnd: now.addingTimeInterval(60)))
                return (claimed, user)
            }
            let (owned, _) = try await pending(for: "custody.kept")
            #expect(try await store.keepPending(owned, sealed: [9], appleSubject: "custody.kept", now: now) == .kept)

            let (settled, _) = try await pending(for: "custody.settled")
            try await store.dropPending(id: settled.id)
            #expect(try await store.keepPending(settled, sealed: [9], appleSubject: "custody.settled", now: now) == .settledElsewhere)

            let (orphan, user) = try await pending(for: "custody.gone")
            try await pool.query("DELETE FROM users WHERE id = $1", [user])
            #expect(try await store.keepPending(orphan, sealed: [9], appleSubject: "custody.gone", now: now) == .userGone)
        }
    }
}

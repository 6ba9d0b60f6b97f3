import Foundation
@testable import IssuerCore
import Logging
import Synchronization
import Testing
import TestSupport

/// The revocation queue's decisions against a fake store and a fake Apple (docs/reference.md,
/// "Account deletion"): what each answer of Apple's does to a row, and the backoff. The
/// statements are tested against PostgreSQL in `AppleRevocationStoreTests`.
@Suite("Apple revocation queue")
struct AppleRevocationQueueTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let vault = AppleTokenVault(secret: ServerSecret(bytes: [UInt8](repeating: 3, count: 32)))
    let logger = Logger(label: "test")

    func api(_ endpoints: FakeAppleEndpoints) -> AppleTokenAPI {
        endpoints.api(clock: clock)
    }

    func claimed(attempts: Int) throws -> AppleRevocationQueue.Claimed {
        let userID = UUID()
        return AppleRevocationQueue.Claimed(
            id: UUID(), userID: userID, clientID: "com.example.app",
            sealed: try vault.seal("apple-refresh", kind: .refreshToken, userID: userID), attempts: attempts)
    }

    @Test("backoff: 30 s after the first try, doubling, at most a day")
    func backoff() {
        #expect(AppleRevocationQueue.backoff(afterAttempts: 1) == 30)
        #expect(AppleRevocationQueue.backoff(afterAttempts: 2) == 60)
        #expect(AppleRevocationQueue.backoff(afterAttempts: 5) == 480)
        #expect(AppleRevocationQueue.backoff(afterAttempts: 40) == 24 * 3600)
    }

    @Test("Apple's 200 ends the row as revoked; invalid_grant ends it as already invalid")
    func acceptedOrInvalidEnds() async throws {
        for (status, body, outcome) in [(200, "", "revoked"), (400, #"{"error":"invalid_grant"}"#, "already_invalid")] {
            let item = try claimed(attempts: 1)
            let store = InMemoryAppleRevocationStore(due: [item])
            let events = RecordingAccountEvents()
            let queue = AppleRevocationQueue(store: store, vault: vault, api: api(FakeAppleEndpoints(revoke: .init(status: status, body: body))), clock: clock, events: events)
            #expect(try await queue.retryDue(logger: logger) == 1)
            #expect(store.writes == [.finished(id: item.id, outcome: outcome)])
            #expect(events.events == ["apple_revocation:\(outcome)"])
        }
    }

    @Test("any other answer reschedules the row after the backoff of its attempts")
    func failureReschedules() async throws {
        let item = try claimed(attempts: 3)
        let store = InMemoryAppleRevocationStore(due: [item])
        let events = RecordingAccountEvents()
        let queue = AppleRevocationQueue(store: store, vault: vault, api: api(FakeAppleEndpoints(revoke: .init(status: 503))), clock: clock, events: events)
        try await queue.retryDue(logger: logger)
        #expect(store.writes == [.rescheduled(id: item.id, next: clock.now.addingTimeInterval(120), error: "HTTP 503")])
        #expect(events.events == ["apple_revocation:failed"])
    }

    @Test("a token that does not decrypt is never sent, and is retried later")
    func undecryptableIsNotSent() async throws {
        var item = try claimed(attempts: 1)
        item.sealed = try AppleTokenVault(secret: ServerSecret(bytes: [UInt8](repeating: 4, count: 32)))
            .seal("apple-refresh", kind: .refreshToken, userID: item.userID)
        let store = InMemoryAppleRevocationStore(due: [item])
        let endpoint = FakeAppleEndpoints()
        let queue = AppleRevocationQueue(store: store, vault: vault, api: api(endpoint), clock: clock, events: RecordingAccountEvents())
        try await queue.retryDue(logger: logger)
        #expect(endpoint.posts(to: "/auth/revoke") == 0)
        guard case .rescheduled(let id, _, let error) = store.writes.first else {
            Issue.record("expected a rescheduled row, got \(store.writes)")
            return
        }
        #expect(id == item.id && error.contains("does not decrypt"))
    }

    @Test("without Apple credentials, no row is claimed")
    func noCredentialsClaimsNothing() async throws {
        let store = InMemoryAppleRevocationStore(due: [try claimed(attempts: 1)])
        let queue = AppleRevocationQueue(store: store, vault: vault, api: nil, clock: clock, events: RecordingAccountEvents())
        #expect(try await queue.retryDue(logger: logger) == 0)
        #expect(store.claims == 0)
        #expect(try await queue.depth() == 1)
    }

    @Test("an unheld token is queued and sent at once; when it cannot be queued, it is still sent once")
    func unheldTokenIsSent() async throws {
        let userID = UUID()
        let store = InMemoryAppleRevocationStore()
        let endpoint = FakeAppleEndpoints()
        let queue = AppleRevocationQueue(store: store, vault: vault, api: api(endpoint), clock: clock, events: RecordingAccountEvents())
        await queue.revokeUnheld(refreshToken: "t", clientID: "com.example.app", userID: userID, timeout: .seconds(1), logger: logger)
        #expect(store.writes.first == .queued(userID: userID, clientID: "com.example.app"))
        #expect(store.writes.count == 2 && endpoint.posts(to: "/auth/revoke") == 1)

        let failing = InMemoryAppleRevocationStore(queuingFails: true)
        let direct = FakeAppleEndpoints()
        let events = RecordingAccountEvents()
        let fallback = AppleRevocationQueue(store: failing, vault: vault, api: api(direct), clock: clock, events: events)
        await fallback.revokeUnheld(refreshToken: "t", clientID: "com.example.app", userID: userID, timeout: .seconds(1), logger: logger)
        #expect(direct.posts(to: "/auth/revoke") == 1)
        #expect(failing.writes.isEmpty)
        #expect(events.events == ["apple_revocation:revoked"])
    }
}

import Foundation
@testable import IssuerCore
import Logging
import Synchronization
import Testing
import TestSupport

/// Apple token custody's decisions against a fake store and fake Apple endpoints (docs/reference.md,
/// "Apple token custody"): what each answer of Apple's does, and what is kept for whom. The
/// statements run against PostgreSQL in `AppleCustodyTests`.
@Suite("Apple token custody decisions")
struct AppleTokenCustodyTests {
    /// Keeps nothing: answers `keep` with `kept`, hands out `pending` codes, and records every call.
    final class FakeStore: AppleCustodyStoring {
        let kept: AppleCustodyStore.Kept
        private let state: Mutex<(pending: [AppleCustodyStore.Pending], expired: [UUID], calls: [String])>

        init(kept: AppleCustodyStore.Kept = .kept, pending: [AppleCustodyStore.Pending] = [], expired: [UUID] = []) {
            self.kept = kept
            state = Mutex((pending, expired, []))
        }

        var calls: [String] { state.withLock { $0.calls } }
        private func record(_ call: String) { state.withLock { $0.calls.append(call) } }

        func keep(sealed: [UInt8], userID: UUID, clientID: String, appleSubject: String, now: Date) async throws -> AppleCustodyStore.Kept {
            record("keep \(clientID) \(appleSubject)")
            return kept
        }

        func queue(
            sealedCode: [UInt8], userID: UUID, clientID: String, redirectURI: String?, received: Date, expiresAt: Date,
            nextAttempt: Date, reason: String
        ) async throws {
            record("queue \(clientID) \(redirectURI ?? "-") \(expiresAt.timeIntervalSince(received)) \(nextAttempt.timeIntervalSince1970)")
        }

        func dropExpired(now: Date) async throws -> [UUID] {
            state.withLock { state in
                state.calls.append("dropExpired")
                defer { state.expired = [] }
                return state.expired
            }
        }

        func claimNext(now: Date, leaseEnd: Date) async throws -> AppleCustodyStore.Pending? {
            state.withLock { state in
                state.calls.append("claimNext")
                return state.pending.isEmpty ? nil : state.pending.removeFirst()
            }
        }

        func keepPending(_ pending: AppleCustodyStore.Pending, sealed: [UInt8], appleSubject: String, now: Date) async throws -> AppleCustodyStore.Kept {
            record("keepPending \(appleSubject)")
            return kept
        }

        func dropPending(id: UUID) async throws { record("dropPending") }

        func reschedule(id: UUID, next: Date, reason: String) async throws {
            record("reschedule \(next.timeIntervalSince1970) \(reason)")
        }
    }

    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let vault = AppleTokenVault(secret: ServerSecret(bytes: [UInt8](repeating: 3, count: 32)))
    let logger = Logger(label: "test")
    let keys: FakeAppleKeys
    let userID = UUID()

    init() throws {
        keys = try FakeAppleKeys(clock: clock)
    }

    /// Custody over `store` and `endpoints` (nil: no Apple credentials); its revocations go to `revocations`.
    func custody(
        _ store: FakeStore, _ endpoints: FakeAppleEndpoints?, revocations: FakeAppleRevocationStore = FakeAppleRevocationStore(),
        events: RecordingAccountEvents = RecordingAccountEvents()
    ) -> AppleTokenCustody {
        let api = endpoints?.api(clock: clock)
        let verifier = IdentityTokenVerifier(
            provider: .apple, keys: RemoteJWKSCache(url: URL(string: "https://appleid.apple.com/auth/keys")!,
                                                   fetcher: StubJWKSFetcher(serving: keys), clock: clock), clock: clock)
        let queue = AppleRevocationQueue(store: revocations, vault: vault, api: api, clock: clock, events: events)
        return AppleTokenCustody(
            store: store, vault: vault, api: api, verifier: verifier, revocations: queue, clock: clock, events: events,
            immediateTimeout: .seconds(1))
    }

    /// Apple's answer to a redeemed code: a refresh token, and an `id_token` naming `subject`.
    func redeemed(subject: String, idToken: String? = nil) throws -> FakeAppleEndpoints.Answer {
        let idToken = try idToken ?? keys.identityToken(subject: subject, audience: "com.example.app")
        let body = try JSONSerialization.data(withJSONObject: ["refresh_token": "apple-refresh", "id_token": idToken])
        return .init(status: 200, body: String(decoding: body, as: UTF8.self))
    }

    func pending(attempts: Int, expiresIn lifetime: TimeInterval) throws -> AppleCustodyStore.Pending {
        AppleCustodyStore.Pending(
            id: UUID(), userID: userID, clientID: "com.example.app", redirectURI: nil,
            sealedCode: try vault.seal("code", kind: .authorizationCode, userID: userID), attempts: attempts,
            expiresAt: clock.now.addingTimeInterval(lifetime))
    }

    @Test("without Apple credentials no code is redeemed, queued or claimed")
    func noCredentials() async throws {
        let store = FakeStore(pending: [try pending(attempts: 1, expiresIn: 60)])
        let custody = custody(store, nil)
        await custody.custody(authorizationCode: "code", clientID: "com.example.app", userID: userID, logger: logger)
        #expect(try await custody.retryPending(logger: logger) == 0)
        #expect(store.calls.isEmpty)
    }

    @Test("a code Apple cannot redeem now is queued for its lifetime, retried 5 s later; a refused one is dropped")
    func failedIsQueuedRefusedIsNot() async throws {
        let failing = FakeStore()
        let events = RecordingAccountEvents()
        await custody(failing, FakeAppleEndpoints(token: .init(status: 503)), events: events)
            .custody(authorizationCode: "code", clientID: "com.example.web", userID: userID, redirectURI: "https://rp.example/cb", logger: logger)
        #expect(failing.calls == ["queue com.example.web https://rp.example/cb 300.0 \(clock.now.timeIntervalSince1970 + 5)"])
        #expect(events.events == ["apple_redemption:failed"])

        let refusing = FakeStore()
        let refusedEvents = RecordingAccountEvents()
        await custody(refusing, FakeAppleEndpoints(token: .init(status: 400, body: #"{"error":"invalid_grant"}"#)), events: refusedEvents)
            .custody(authorizationCode: "code", clientID: "com.example.app", userID: userID, logger: logger)
        #expect(refusing.calls.isEmpty)
        #expect(refusedEvents.events == ["apple_redemption:refused"])
    }

    @Test("a redeemed token is kept for the Apple account its id_token names, and not revoked")
    func redeemedIsKept() async throws {
        let store = FakeStore(kept: .kept)
        let endpoints = FakeAppleEndpoints(token: try redeemed(subject: "apple.sub"))
        let events = RecordingAccountEvents()
        await custody(store, endpoints, events: events).custody(authorizationCode: "code", clientID: "com.example.app", userID: userID, logger: logger)
        #expect(store.calls == ["keep com.example.app apple.sub"])
        #expect(endpoints.posts(to: "/auth/revoke") == 0)
        #expect(events.events == ["apple_redemption:redeemed"])
    }

    @Test("a token that is another Apple account's, or whose user is gone, or whose id_token fails, is revoked at once")
    func unkeptIsRevoked() async throws {
        for (kept, idToken, event) in [
            (AppleCustodyStore.Kept.notTheirs, nil, "mismatched"), (.userGone, nil, "redeemed"), (.kept, "not.a.token", "unverified"),
        ] as [(AppleCustodyStore.Kept, String?, String)] {
            let store = FakeStore(kept: kept)
            let endpoints = FakeAppleEndpoints(token: try redeemed(subject: "apple.sub", idToken: idToken))
            let revocations = FakeAppleRevocationStore()
            let events = RecordingAccountEvents()
            await custody(store, endpoints, revocations: revocations, events: events)
                .custody(authorizationCode: "code", clientID: "com.example.app", userID: userID, logger: logger)
            #expect(store.calls == (idToken == nil ? ["keep com.example.app apple.sub"] : []), "\(event)")
            #expect(endpoints.posts(to: "/auth/revoke") == 1, "\(event)")
            #expect(revocations.writes.first == .queued(userID: userID, clientID: "com.example.app"), "\(event)")
            #expect(events.events == ["apple_redemption:\(event)", "apple_revocation:revoked"], "\(event)")
        }
    }

    @Test("the worker drops expired codes, then tries due ones: refused are dropped, failed retried with backoff, never past expiry")
    func workerPass() async throws {
        let refused = try pending(attempts: 1, expiresIn: 200)
        let store = FakeStore(pending: [refused], expired: [UUID()])
        let events = RecordingAccountEvents()
        let tried = try await custody(store, FakeAppleEndpoints(token: .init(status: 400, body: #"{"error":"invalid_grant"}"#)), events: events)
            .retryPending(logger: logger)
        #expect(tried == 1)
        #expect(store.calls == ["dropExpired", "claimNext", "dropPending", "claimNext"])
        #expect(events.events == ["apple_redemption:expired", "apple_redemption:refused"])

        let now = clock.now.timeIntervalSince1970
        let failing = FakeStore(pending: [try pending(attempts: 3, expiresIn: 200), try pending(attempts: 3, expiresIn: 10)])
        #expect(try await custody(failing, FakeAppleEndpoints(token: .init(status: 502))).retryPending(logger: logger) == 2)
        #expect(failing.calls.filter { $0.hasPrefix("reschedule") } == ["reschedule \(now + 20) HTTP 502", "reschedule \(now + 10) HTTP 502"])
    }

    @Test("one pass tries at most a batch of codes")
    func batchLimit() async throws {
        let store = FakeStore(pending: try (0..<30).map { _ in try pending(attempts: 1, expiresIn: 200) })
        #expect(try await custody(store, FakeAppleEndpoints(token: .init(status: 502))).retryPending(logger: logger) == AppleTokenCustody.batchSize)
        #expect(store.calls.filter { $0 == "claimNext" }.count == AppleTokenCustody.batchSize)
    }
}

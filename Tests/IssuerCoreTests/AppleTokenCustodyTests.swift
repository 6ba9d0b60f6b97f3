import Foundation
@testable import IssuerCore
import Logging
import Synchronization
import Testing
import TestSupport

/// Apple token custody's decisions against a fake store and fake Apple endpoints (docs/reference.md,
/// "Apple token custody"): what each answer of Apple's does, and what is kept for whom. The
/// statements run against PostgreSQL in `AppleCustodyStoringContractTests`.
@Suite("Apple token custody decisions")
struct AppleTokenCustodyTests {
    /// Keeps nothing: answers `keep` with `kept`, hands out `pending` codes, and records every call.
    final class FakeStore: AppleCustodyStoring {
        let kept: AppleTokenCustody.Kept
        private let state: Mutex<(
            pending: [AppleTokenCustody.Pending], expired: [UUID], calls: [String], held: [(answer: AppleTokenCustody.Held, due: Date)],
            claimed: [AppleTokenCustody.Held]
        )>

        init(kept: AppleTokenCustody.Kept = .kept, pending: [AppleTokenCustody.Pending] = [], expired: [UUID] = []) {
            self.kept = kept
            state = Mutex((pending, expired, [], [], []))
        }

        var calls: [String] { state.withLock { $0.calls } }
        /// The answers held, as `hold` stored them (claimed ones gone until rescheduled).
        var held: [AppleTokenCustody.Held] { state.withLock { $0.held.map(\.answer) } }
        private func record(_ call: String) { state.withLock { $0.calls.append(call) } }

        func keep(sealed: [UInt8], userID: UUID, clientID: String, appleSubject: String, now: Date) async throws -> AppleTokenCustody.Kept {
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

        func claimNext(now: Date, leaseEnd: Date) async throws -> AppleTokenCustody.Pending? {
            state.withLock { state in
                state.calls.append("claimNext")
                return state.pending.isEmpty ? nil : state.pending.removeFirst()
            }
        }

        func keepPending(_ pending: AppleTokenCustody.Pending, sealed: [UInt8], appleSubject: String, now: Date) async throws -> AppleTokenCustody.Kept {
            record("keepPending \(appleSubject)")
            return kept
        }

        func dropPending(id: UUID) async throws { record("dropPending") }

        func reschedule(id: UUID, next: Date, reason: String) async throws {
            record("reschedule \(next.timeIntervalSince1970) \(reason)")
        }

        func hold(
            sealedAnswer: [UInt8], userID: UUID, clientID: String, received: Date, nextAttempt: Date, reason: String, pendingID: UUID?
        ) async throws {
            state.withLock { state in
                state.calls.append("hold \(clientID) \(nextAttempt.timeIntervalSince(received)) \(pendingID == nil ? "-" : "pending")")
                state.held.append((AppleTokenCustody.Held(
                    id: UUID(), userID: userID, clientID: clientID, sealedAnswer: sealedAnswer, receivedAt: received, attempts: 0), nextAttempt))
            }
        }

        func claimNextHeld(now: Date, leaseEnd: Date) async throws -> AppleTokenCustody.Held? {
            state.withLock { state in
                state.calls.append("claimNextHeld")
                guard let index = state.held.firstIndex(where: { $0.due <= now }) else { return nil }
                var held = state.held.remove(at: index).answer
                held.attempts += 1
                state.claimed.append(held)
                return held
            }
        }

        func keepHeld(_ held: AppleTokenCustody.Held, sealed: [UInt8], appleSubject: String, now: Date) async throws -> AppleTokenCustody.Kept {
            record("keepHeld \(appleSubject)")
            return kept
        }

        func dropHeld(id: UUID) async throws { record("dropHeld") }

        /// Puts the claimed answer back, due at `next`.
        func rescheduleHeld(id: UUID, next: Date, reason: String) async throws {
            record("rescheduleHeld \(next.timeIntervalSince1970)")
            state.withLock { state in
                if let claimed = state.claimed.first(where: { $0.id == id }) { state.held.append((claimed, next)) }
            }
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
        _ store: FakeStore, _ endpoints: FakeAppleEndpoints?, revocations: InMemoryAppleRevocationStore = InMemoryAppleRevocationStore(),
        events: RecordingAccountEvents = RecordingAccountEvents(), fetcher: StubJWKSFetcher? = nil
    ) -> AppleTokenCustody {
        let api = endpoints?.api(clock: clock)
        let verifier = IdentityTokenVerifier(
            provider: .apple, keys: RemoteJWKSCache(url: URL(string: "https://appleid.apple.com/auth/keys")!,
                                                   fetcher: fetcher ?? StubJWKSFetcher(serving: keys), clock: clock), clock: clock)
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

    func pending(attempts: Int, expiresIn lifetime: TimeInterval) throws -> AppleTokenCustody.Pending {
        AppleTokenCustody.Pending(
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
            (AppleTokenCustody.Kept.notTheirs, nil, "mismatched"), (.userGone, nil, "redeemed"), (.kept, "not.a.token", "unverified"),
        ] as [(AppleTokenCustody.Kept, String?, String)] {
            let store = FakeStore(kept: kept)
            let endpoints = FakeAppleEndpoints(token: try redeemed(subject: "apple.sub", idToken: idToken))
            let revocations = InMemoryAppleRevocationStore()
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

    @Test("Apple's keys unreachable while its answer is verified: the answer is held, sealed, and nothing is revoked")
    func unverifiableAnswerIsHeld() async throws {
        let store = FakeStore()
        let endpoints = FakeAppleEndpoints(token: try redeemed(subject: "apple.sub"))
        let revocations = InMemoryAppleRevocationStore()
        let events = RecordingAccountEvents()
        let fetcher = StubJWKSFetcher(serving: keys)
        fetcher.setFailing(true)
        await custody(store, endpoints, revocations: revocations, events: events, fetcher: fetcher)
            .custody(authorizationCode: "code", clientID: "com.example.app", userID: userID, logger: logger)
        #expect(store.calls == ["hold com.example.app 5.0 -"])
        #expect(endpoints.posts(to: "/auth/revoke") == 0)
        #expect(revocations.writes.isEmpty)
        #expect(events.events == ["apple_redemption:held"])
        let sealed = try #require(store.held.first).sealedAnswer
        #expect(!String(decoding: sealed, as: UTF8.self).contains("apple-refresh"), "held sealed")
        #expect(try vault.open(sealed, kind: .tokenAnswer, userID: userID).contains("apple-refresh"))
    }

    @Test("a held answer, once the keys are back, is verified as of when Apple sent it: kept when it is the user's, revoked when it is not or does not verify; still no keys, it waits")
    func heldAnswerSettled() async throws {
        // Keys unreachable: held, and the worker's pass leaves it waiting, revoking nothing.
        for (kept, idToken, calls, revoked, event) in [
            (AppleTokenCustody.Kept.kept, nil, ["keepHeld apple.sub"], 0, "redeemed"),
            (.notTheirs, nil, ["keepHeld apple.sub"], 1, "mismatched"),
            (.kept, try keys.identityToken(subject: "apple.sub", audience: "com.example.other"), ["dropHeld"], 1, "unverified"),
        ] as [(AppleTokenCustody.Kept, String?, [String], Int, String)] {
            let store = FakeStore(kept: kept)
            let endpoints = FakeAppleEndpoints(token: try redeemed(subject: "apple.sub", idToken: idToken))
            let fetcher = StubJWKSFetcher(serving: keys)
            fetcher.setFailing(true)
            let events = RecordingAccountEvents()
            let custody = custody(store, endpoints, events: events, fetcher: fetcher)
            await custody.custody(authorizationCode: "code", clientID: "com.example.app", userID: userID, logger: logger)
            clock.advance(by: 5)
            #expect(try await custody.verifyHeld(logger: logger) == 1, "\(event)")
            #expect(store.calls.suffix(2) == ["rescheduleHeld \(clock.now.timeIntervalSince1970 + 5)", "claimNextHeld"], "\(event)")

            // The keys are back, past Apple's id_token's own lifetime: judged as of its receipt.
            fetcher.setFailing(false)
            clock.advance(by: 3600)
            #expect(try await custody.verifyHeld(logger: logger) == 1, "\(event)")
            #expect(Array(store.calls.suffix(calls.count + 1)) == calls + ["claimNextHeld"], "\(event)")
            #expect(endpoints.posts(to: "/auth/revoke") == revoked, "\(event)")
            #expect(events.events.prefix(2) == ["apple_redemption:held", "apple_redemption:\(event)"], "\(event)")
        }
    }
}

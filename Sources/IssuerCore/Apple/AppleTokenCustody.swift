import Foundation
import Logging

/// Holds the user's Apple refresh token (docs/reference.md, "Apple token custody"), so that deleting the account can revoke it
/// at Apple as the App Store requires. Both sign-ins that receive Apple's one-time authorization
/// code call `custody(authorizationCode:clientID:userID:redirectURI:logger:)`: the native exchange
/// (docs/reference.md, "Native sign-in", `client_id` = the identity token's `aud`, the bundle ID) and the hosted callback
/// (docs/reference.md, "Hosted sign-in", the Services ID and the callback's `redirect_uri`).
///
/// The code is redeemed at once with a short timeout; whatever Apple answers, the sign-in goes on.
/// A code Apple could not redeem (unreachable, 5xx) is kept, sealed, in the database and retried by
/// any process's worker (`retryPending`) while it lives (5 minutes). Apple's refresh token is
/// stored only sealed (`AppleTokenVault`) and never logged.
///
/// Apple's answer carries its own `id_token`, verified as a sign-in's is (for the `client_id` the
/// code was redeemed for); the token is kept only when its `sub` is the signing-in user's Apple
/// account (`AppleCustodyStore`). A code that is someone else's, an answer whose `id_token` does
/// not verify, a user deleted meanwhile, or a token the database would not take: Apple's token is
/// revoked at once (`AppleRevocationQueue.revokeUnheld`) and nothing is kept for this user.
///
/// Only a verified verdict revokes: revoking ends the user's authorization at Apple, whose
/// `consent-revoked` then signs the user out everywhere, so Apple's keys being unreachable is not
/// a reason. Such an answer is held, sealed, and verified again by the worker (`verifyHeld`) once
/// the keys are back, as of when Apple sent it; then kept or revoked.
public struct AppleTokenCustody: Sendable {
    /// The provider whose tokens it holds: its identities' provider id.
    public static let provider = IdentityProvider.apple.name
    /// Apple's authorization codes are valid for five minutes.
    public static let codeLifetime: Duration = .seconds(300)
    /// docs/reference.md, "Native sign-in": Apple's code is at most this long; longer is `invalid_request`.
    public static let maximumCodeLength = 1024
    /// Codes tried per worker pass. Each is claimed alone, just before it is sent, so the lease
    /// covers one send (its timeout) and its writes, never a batch's worth.
    static let batchSize = 20
    static let lease: TimeInterval = 30

    /// The wait after `attempts` failed tries: 5 s, doubling, at most a minute.
    static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        min(5 * pow(2, Double(max(0, min(attempts, 10) - 1))), 60)
    }

    private let store: any AppleCustodyStoring
    private let vault: AppleTokenVault
    private let api: AppleTokenAPI?
    private let verifier: IdentityTokenVerifier
    private let revocations: AppleRevocationQueue
    private let clock: any WallClock
    private let events: any AccountEvents
    /// How long the sign-in waits on Apple.
    private let immediateTimeout: Duration

    /// - Parameters:
    ///   - store: `AppleCustodyStore` for Apple's identities.
    ///   - api: nil without Apple developer credentials: codes are then not redeemed.
    ///   - verifier: Apple's, for the `id_token` of Apple's answers.
    package init(
        store: any AppleCustodyStoring, vault: AppleTokenVault, api: AppleTokenAPI?, verifier: IdentityTokenVerifier,
        revocations: AppleRevocationQueue, clock: any WallClock, events: any AccountEvents, immediateTimeout: Duration = .seconds(2)
    ) {
        self.store = store
        self.vault = vault
        self.api = api
        self.verifier = verifier
        self.revocations = revocations
        self.clock = clock
        self.events = events
        self.immediateTimeout = immediateTimeout
    }

    /// Whether Apple developer credentials are configured, so codes are redeemed at all.
    public var isConfigured: Bool { api != nil }

    /// Redeems Apple's code for `userID` and keeps the refresh token, or queues the code for the
    /// background worker. Never throws and never fails the sign-in (docs/reference.md, "Apple token custody").
    /// - Parameters:
    ///   - clientID: the Apple `client_id` the code was issued to: the identity token's `aud`.
    ///   - redirectURI: the `redirect_uri` Apple sent the code to, for web codes; nil for native ones.
    public func custody(authorizationCode: String, clientID: String, userID: UUID, redirectURI: String? = nil, logger: Logger) async {
        guard let api else {
            logger.debug("Apple authorization code not redeemed: no Apple developer credentials")
            return
        }
        let metadata: Logger.Metadata = ["user": .identifier(userID), "client_id": "\(clientID)"]
        let received = clock.now
        let outcome = await api.redeem(code: authorizationCode, clientID: clientID, redirectURI: redirectURI, timeout: immediateTimeout)
        switch outcome {
        case .redeemed(let refreshToken, let idToken):
            await settle(
                refreshToken, idToken: idToken, clientID: clientID, userID: userID, logger: logger, metadata: metadata,
                hold: { sealed, answered, reason in
                    try await store.hold(
                        sealedAnswer: sealed, userID: userID, clientID: clientID, received: answered,
                        nextAttempt: answered.addingTimeInterval(Self.backoff(afterAttempts: 1)), reason: reason, pendingID: nil)
                }
            ) { sealed, subject in
                try await store.keep(sealed: sealed, userID: userID, clientID: clientID, appleSubject: subject, now: clock.now)
            }
        case .refused(let reason):
            events.appleRedemption(outcome: "refused")
            logger.warning("Apple refused the authorization code; no Apple token is held", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
        case .failed(let reason):
            events.appleRedemption(outcome: "failed")
            do {
                try await store.queue(
                    sealedCode: try vault.seal(authorizationCode, kind: .authorizationCode, userID: userID), userID: userID,
                    clientID: clientID, redirectURI: redirectURI, received: received,
                    expiresAt: received.addingTimeInterval(Self.codeLifetime.timeInterval),
                    nextAttempt: clock.now.addingTimeInterval(Self.backoff(afterAttempts: 1)), reason: reason)
                logger.notice("Apple code redemption failed; retrying in the background while the code lives", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
            } catch {
                logger.error("Apple code redemption failed and cannot be queued", metadata: metadata.merging(["error": "\(reason); \(error)"]) { $1 })
            }
        }
    }

    /// One worker pass: drops expired codes, then claims the due ones one at a time (each claim
    /// skips rows another process holds) and tries each once. Answers how many were tried.
    @discardableResult
    public func retryPending(timeout: Duration = .seconds(5), logger: Logger) async throws -> Int {
        guard let api else { return 0 }
        for userID in try await store.dropExpired(now: clock.now) {
            events.appleRedemption(outcome: "expired")
            logger.warning("Apple authorization code expired before Apple redeemed it; no Apple token is held", metadata: [
                "user": .identifier(userID),
            ])
        }
        var tried = 0
        while tried < Self.batchSize {
            let now = clock.now
            guard let pending = try await store.claimNext(now: now, leaseEnd: now.addingTimeInterval(Self.lease)) else { break }
            tried += 1
            let metadata: Logger.Metadata = [
                "user": .identifier(pending.userID), "client_id": "\(pending.clientID)", "attempt": "\(pending.attempts)",
            ]
            let outcome: AppleTokenAPI.Redemption
            do {
                let code = try vault.open(pending.sealedCode, kind: .authorizationCode, userID: pending.userID)
                outcome = await api.redeem(code: code, clientID: pending.clientID, redirectURI: pending.redirectURI, timeout: timeout)
            } catch {
                outcome = .refused("the stored code does not decrypt (was ISSUER_SECRET changed?)")
            }
            switch outcome {
            case .redeemed(let refreshToken, let idToken):
                await settle(
                    refreshToken, idToken: idToken, clientID: pending.clientID, userID: pending.userID, logger: logger, metadata: metadata,
                    hold: { sealed, answered, reason in
                        try await store.hold(
                            sealedAnswer: sealed, userID: pending.userID, clientID: pending.clientID, received: answered,
                            nextAttempt: answered.addingTimeInterval(Self.backoff(afterAttempts: 1)), reason: reason, pendingID: pending.id)
                    }
                ) { sealed, subject in
                    try await store.keepPending(pending, sealed: sealed, appleSubject: subject, now: clock.now)
                }
            case .refused(let reason):
                try await store.dropPending(id: pending.id)
                events.appleRedemption(outcome: "refused")
                logger.warning("Apple refused the authorization code; no Apple token is held", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
            case .failed(let reason):
                let next = min(clock.now.addingTimeInterval(Self.backoff(afterAttempts: pending.attempts)), pending.expiresAt)
                try await store.reschedule(id: pending.id, next: next, reason: reason)
                events.appleRedemption(outcome: "failed")
                logger.notice("Apple code redemption failed again; will retry while the code lives", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
            }
        }
        return tried
    }

    /// One pass over Apple's answers held unverified: each claimed alone and verified as of when
    /// Apple sent it, then kept or revoked as at sign-in; one whose keys still cannot be fetched
    /// waits for the next try (5 s, doubling, at most a minute). Answers how many were tried.
    @discardableResult
    public func verifyHeld(logger: Logger) async throws -> Int {
        guard api != nil else { return 0 }
        var tried = 0
        while tried < Self.batchSize {
            let now = clock.now
            guard let held = try await store.claimNextHeld(now: now, leaseEnd: now.addingTimeInterval(Self.lease)) else { break }
            tried += 1
            let metadata: Logger.Metadata = [
                "user": .identifier(held.userID), "client_id": "\(held.clientID)", "attempt": "\(held.attempts)",
            ]
            let answer: HeldAnswer
            do {
                let opened = try vault.open(held.sealedAnswer, kind: .tokenAnswer, userID: held.userID)
                answer = try JSONDecoder().decode(HeldAnswer.self, from: Data(opened.utf8))
            } catch {
                // Nothing to verify or revoke with: the token inside cannot be read any more.
                try await store.dropHeld(id: held.id)
                events.appleRedemption(outcome: "failed")
                logger.error("a held Apple answer does not decrypt (was ISSUER_SECRET changed?); it is dropped", metadata: metadata)
                continue
            }
            let subject: String
            do {
                subject = try await verifier.verifyTokenAnswer(answer.idToken, audience: held.clientID, receivedAt: held.receivedAt).subject
            } catch .keysUnavailable(let reason) {
                try await store.rescheduleHeld(id: held.id, next: clock.now.addingTimeInterval(Self.backoff(afterAttempts: held.attempts)), reason: reason)
                logger.notice("Apple's keys still cannot be fetched; the held answer waits", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
                continue
            } catch {
                await refuse(answer.refreshToken, error, clientID: held.clientID, userID: held.userID, logger: logger, metadata: metadata)
                try await store.dropHeld(id: held.id)
                continue
            }
            let kept = try await store.keepHeld(
                held, sealed: try vault.seal(answer.refreshToken, kind: .refreshToken, userID: held.userID), appleSubject: subject, now: clock.now)
            await record(kept, refreshToken: answer.refreshToken, clientID: held.clientID, userID: held.userID, logger: logger, metadata: metadata)
        }
        return tried
    }

    /// Apple's answer as it is held (sealed) while it cannot be verified.
    struct HeldAnswer: Codable {
        var refreshToken: String
        var idToken: String

        enum CodingKeys: String, CodingKey {
            case refreshToken = "refresh_token"
            case idToken = "id_token"
        }
    }

    /// What follows Apple's answer of a refresh token: its `id_token` verified, then the token
    /// kept by `store` for the Apple account that `id_token` names, or else revoked at once; held
    /// by `hold` (with when it was received, and why) when Apple's keys cannot be fetched to verify it.
    private func settle(
        _ refreshToken: String, idToken: String?, clientID: String, userID: UUID, logger: Logger, metadata: Logger.Metadata,
        hold: (_ sealedAnswer: [UInt8], _ received: Date, _ reason: String) async throws -> Void,
        store keep: (_ sealed: [UInt8], _ appleSubject: String) async throws -> AppleTokenCustody.Kept
    ) async {
        let received = clock.now
        guard let idToken else {
            await refuse(refreshToken, IdentityTokenError.malformed("Apple's answer carries no id_token"), clientID: clientID, userID: userID, logger: logger, metadata: metadata)
            return
        }
        let subject: String
        do {
            subject = try await verifier.verifyTokenAnswer(idToken, audience: clientID).subject
        } catch .keysUnavailable(let reason) {
            do {
                let answer = try JSONEncoder().encode(HeldAnswer(refreshToken: refreshToken, idToken: idToken))
                try await hold(try vault.seal(String(decoding: answer, as: UTF8.self), kind: .tokenAnswer, userID: userID), received, reason)
            } catch {
                events.appleRedemption(outcome: "failed")
                logger.error("Apple's answer cannot be verified now and cannot be held; its token is revoked", metadata: metadata.merging([
                    "error": "\(reason); \(error)",
                ]) { $1 })
                await revocations.revokeUnheld(refreshToken: refreshToken, clientID: clientID, userID: userID, timeout: immediateTimeout, logger: logger)
                return
            }
            events.appleRedemption(outcome: "held")
            logger.notice("Apple's keys cannot be fetched to verify its answer; the answer is held until they can", metadata: metadata.merging([
                "error": "\(reason)",
            ]) { $1 })
            return
        } catch {
            await refuse(refreshToken, error, clientID: clientID, userID: userID, logger: logger, metadata: metadata)
            return
        }
        let kept: AppleTokenCustody.Kept
        do {
            kept = try await keep(try vault.seal(refreshToken, kind: .refreshToken, userID: userID), subject)
        } catch {
            events.appleRedemption(outcome: "failed")
            logger.error("Apple token redeemed but not stored; it is revoked", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            await revocations.revokeUnheld(refreshToken: refreshToken, clientID: clientID, userID: userID, timeout: immediateTimeout, logger: logger)
            return
        }
        await record(kept, refreshToken: refreshToken, clientID: clientID, userID: userID, logger: logger, metadata: metadata)
    }

    /// An answer whose `id_token` was judged and refused (malformed, a bad signature, a wrong
    /// `iss`, `aud` or `exp`): a verdict, not a fault, so Apple's token is revoked at once.
    private func refuse(
        _ refreshToken: String, _ error: IdentityTokenError, clientID: String, userID: UUID, logger: Logger, metadata: Logger.Metadata
    ) async {
        events.appleRedemption(outcome: "unverified")
        logger.warning("Apple's answer to the code redemption does not verify; its token is revoked and nothing is held", metadata: metadata.merging([
            "error": "\(error)",
        ]) { $1 })
        await revocations.revokeUnheld(refreshToken: refreshToken, clientID: clientID, userID: userID, timeout: immediateTimeout, logger: logger)
    }

    /// What a verified answer's token became: held, or revoked when no user may hold it.
    private func record(
        _ kept: AppleTokenCustody.Kept, refreshToken: String, clientID: String, userID: UUID, logger: Logger, metadata: Logger.Metadata
    ) async {
        switch kept {
        case .kept:
            events.appleRedemption(outcome: "redeemed")
            logger.info("Apple authorization code redeemed; Apple token held", metadata: metadata)
        case .userGone:
            events.appleRedemption(outcome: "redeemed")
            logger.notice("Apple token redeemed for an account deleted meanwhile; it is revoked", metadata: metadata)
            await revocations.revokeUnheld(refreshToken: refreshToken, clientID: clientID, userID: userID, timeout: immediateTimeout, logger: logger)
        case .notTheirs:
            events.appleRedemption(outcome: "mismatched")
            logger.warning("Apple's code belongs to another Apple account than the one signing in; its token is revoked and nothing is held", metadata: metadata)
            await revocations.revokeUnheld(refreshToken: refreshToken, clientID: clientID, userID: userID, timeout: immediateTimeout, logger: logger)
        case .settledElsewhere:
            logger.notice("a held Apple answer was settled by another process meanwhile", metadata: metadata)
        }
    }
}

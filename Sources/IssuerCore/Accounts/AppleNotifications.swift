import Foundation
import Logging

/// docs/reference.md, "Apple notifications": the decoder of Apple's server-to-server
/// notifications over `SecurityEventPipeline` (docs/design.md, "Security events"). The payload
/// is verified like an identity token, through the same cache of Apple's keys (docs/design.md,
/// "Apple and remote parties"), and read as one `SecurityEvent` by the table of that section; the
/// pipeline applies it once per `jti`.
public struct AppleNotifications: Sendable {
    /// What happened to one notification: applied to the user with that Apple identity, nothing
    /// to do (no user has it, or the type is not one we act on), or a `jti` applied before.
    public typealias Outcome = SecurityEventPipeline.Outcome

    /// Whose `jti`s these are, in the record of received events.
    static let sender = "apple"

    private let verifier: IdentityTokenVerifier
    private let audiences: Set<String>
    private let pipeline: SecurityEventPipeline
    private let clock: any WallClock
    private let events: any AccountEvents

    /// - Parameters:
    ///   - verifier: the very verifier (and so JWKS cache) of the native exchange.
    ///   - audiences: `ISSUER_APPLE_CLIENT_IDS` and `ISSUER_APPLE_SERVICES_ID`.
    ///   - pipeline: what applies the events, as it applies every provider's.
    public init(
        verifier: IdentityTokenVerifier, audiences: Set<String>, pipeline: SecurityEventPipeline, clock: any WallClock,
        events: any AccountEvents
    ) {
        self.verifier = verifier
        self.audiences = audiences
        self.pipeline = pipeline
        self.clock = clock
        self.events = events
    }

    /// Verifies and applies one notification. `400 invalid_request` for a payload that fails
    /// verification (nothing changes), `503` when Apple's keys cannot be had (so Apple retries).
    @discardableResult
    public func receive(payload: String, logger: Logger) async throws(OAuthError) -> Outcome {
        let event: AppleNotificationEvent
        do {
            let verified = try await verifier.verifiedPayload(payload)
            event = try AppleNotificationEvent(
                payload: verified, issuer: verifier.provider.issuer, audiences: audiences, now: clock.now,
                leeway: IdentityTokenVerifier.leeway)
        } catch {
            if case .keysUnavailable(let reason)? = error as? IdentityTokenError {
                events.appleNotification(type: "unavailable")
                logger.warning("Apple notification not verified: Apple's keys cannot be fetched; Apple will retry", metadata: ["error": "\(reason)"])
                throw .temporarilyUnavailable("Apple's keys cannot be fetched; try again later.", debug: reason)
            }
            events.appleNotification(type: "invalid")
            logger.warning("Apple notification refused", metadata: ["error": "\(error)"])
            throw .invalidRequest("The notification payload failed verification.", debug: "\(error)")
        }
        let results = try await pipeline.apply(Self.delivery(event, provider: verifier.provider.name))
        let outcome = Outcome(results)
        let userID = results?.first?.users.first
        events.appleNotification(type: outcome == .duplicate ? "duplicate" : event.kind.name)
        // Never the email, nor Apple's user id: the internal id is enough to follow the user.
        logger.notice("Apple notification", metadata: [
            "type": "\(event.kind.name)", "outcome": "\(outcome)", "user": "\(userID?.lowercaseText ?? "-")",
        ])
        return outcome
    }

    /// What one verified notification is, for the pipeline: one event about the identity of
    /// `provider` (Apple's) with Apple's user id, and per kind the effects of the table of
    /// docs/reference.md, "Apple notifications".
    static func delivery(_ event: AppleNotificationEvent, provider: String) -> SecurityEventPipeline.Delivery {
        let effects: [SecurityEvent.Effect]
        switch event.kind {
        case .emailDisabled, .emailEnabled:
            effects = [.recorded(.emailForwarding(enabled: event.kind == .emailEnabled), at: event.time)]
        case .consentRevoked:
            // Every session of the user that began by the event (at `event_time`'s millisecond
            // precision), whichever provider signed it in, as Google's security events do: a
            // sign-in after it is a new consent. Apple has already ended this authorization, so
            // its tokens and codes kept by then are dropped, with nothing to revoke there.
            effects = [.sessionsRevoked(begunBy: event.time, reason: "apple consent revoked"), .heldGrantsDropped(keptBy: event.time)]
        case .accountDeleted:
            // Nothing is sent to Apple: Apple deleted the account first.
            effects = [.accountDeleted(.appleAccountDeleted, revokeHeldTokens: false)]
        case .unknown:
            effects = []
        }
        return SecurityEventPipeline.Delivery(
            sender: sender, id: event.jti, providers: [provider],
            events: [SecurityEvent(name: event.kind.name, subject: event.subject, effects: effects)])
    }
}

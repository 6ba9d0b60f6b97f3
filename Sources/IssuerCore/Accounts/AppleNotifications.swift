import Foundation
import Logging
import Postgres

/// docs/reference.md, "Apple notifications": applies Apple's server-to-server notifications. The payload is verified like an
/// identity token, through the same cache of Apple's keys (docs/design.md, "Apple and remote parties"); each event is
/// applied once per `jti`, in the same transaction that records the `jti`, so a redelivery or
/// two processes receiving the same event change nothing twice.
public struct AppleNotifications: Sendable {
    /// What happened to one notification.
    public enum Outcome: Sendable, Equatable {
        /// Applied to the user with that Apple identity.
        case applied
        /// Nothing to do: no user has that Apple identity, or the type is not one we act on.
        case nothingToDo
        /// Its `jti` was applied before.
        case duplicate
    }

    private let verifier: IdentityTokenVerifier
    private let audiences: Set<String>
    private let pool: ConnectionPool
    private let clock: any WallClock
    private let events: any AccountEvents

    /// - Parameters:
    ///   - verifier: the very verifier (and so JWKS cache) of the native exchange.
    ///   - audiences: `ISSUER_APPLE_CLIENT_IDS` and `ISSUER_APPLE_SERVICES_ID`.
    public init(verifier: IdentityTokenVerifier, audiences: Set<String>, pool: ConnectionPool, clock: any WallClock, events: any AccountEvents) {
        self.verifier = verifier
        self.audiences = audiences
        self.pool = pool
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
        } catch let error as IdentityTokenError {
            if case .keysUnavailable(let reason) = error {
                events.appleNotification(type: "unavailable")
                logger.warning("Apple notification not verified: Apple's keys cannot be fetched; Apple will retry", metadata: ["error": "\(reason)"])
                throw .temporarilyUnavailable("Apple's keys cannot be fetched; try again later.", debug: reason)
            }
            events.appleNotification(type: "invalid")
            logger.warning("Apple notification refused", metadata: ["error": "\(error)"])
            throw .invalidRequest("The notification payload failed verification.", debug: "\(error)")
        } catch {
            events.appleNotification(type: "invalid")
            logger.warning("Apple notification refused", metadata: ["error": "\(error)"])
            throw .invalidRequest("The notification payload failed verification.", debug: "\(error)")
        }
        let now = clock.now
        let provider = verifier.provider.name
        let result: (Outcome, UUID?)
        do {
            result = try await pool.transaction { connection in try Self.apply(event, provider: provider, on: connection, now: now) }
        } catch {
            throw .storage(error)
        }
        let (outcome, userID) = result
        events.appleNotification(type: outcome == .duplicate ? "duplicate" : event.kind.name)
        if outcome == .applied, event.kind == .accountDeleted {
            events.accountDeleted(reason: AccountDeletion.Reason.appleAccountDeleted.rawValue)
        }
        // Never the email, nor Apple's user id: the internal id is enough to follow the user.
        logger.notice("Apple notification", metadata: [
            "type": "\(event.kind.name)", "outcome": "\(outcome)", "user": "\(userID?.uuidString.lowercased() ?? "-")",
        ])
        return outcome
    }

    private static func apply(_ event: AppleNotificationEvent, provider: String, on connection: Connection, now: Date) throws -> (Outcome, UUID?) {
        guard try ReceivedEventStore.record(sender: .apple, jti: event.jti, type: event.kind.name, on: connection, now: now)
        else { return (.duplicate, nil) }
        guard let row = try connection.query(
            "SELECT user_id FROM identities WHERE provider = $1 AND subject = $2", [provider, event.subject]).single
        else { return (.nothingToDo, nil) }
        let userID: UUID = try row.decode(at: 0)
        switch event.kind {
        case .emailDisabled, .emailEnabled:
            // An older event delivered late never overwrites a newer one.
            try connection.query("""
                UPDATE users SET email_forwarding = $2, email_forwarding_changed_at = $3
                WHERE id = $1 AND (email_forwarding_changed_at IS NULL OR email_forwarding_changed_at <= $3)
                """, [userID, event.kind == .emailEnabled ? "enabled" : "disabled", event.time])
        case .consentRevoked:
            // Only the sessions that began by the event (at `event_time`'s millisecond precision):
            // a sign-in after it is a new consent. And only Apple's: a user who also linked
            // another provider stays signed in where they used it.
            try SessionRevocation.revoke(
                userID: userID, begunBy: event.time, provider: "apple", reason: "apple consent revoked", on: connection, at: now)
            // Apple has already ended this authorization: there is nothing left to revoke there.
            // As with sessions: a token or code kept for a sign-in after the event stays.
            try connection.query("DELETE FROM apple_tokens WHERE user_id = $1 AND date_trunc('milliseconds', created_at) <= $2", [userID, event.time])
            try connection.query("DELETE FROM apple_code_redemptions WHERE user_id = $1 AND date_trunc('milliseconds', created_at) <= $2", [userID, event.time])
        case .accountDeleted:
            _ = try AccountDeletion.delete(
                userID: userID, sessionID: nil, reason: .appleAccountDeleted, revokeAtApple: false, on: connection, now: now)
        case .unknown:
            return (.nothingToDo, userID)
        }
        return (.applied, userID)
    }
}

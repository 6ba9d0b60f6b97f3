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
    private let store: any AppleNotificationStoring
    private let clock: any WallClock
    private let events: any AccountEvents

    /// - Parameters:
    ///   - verifier: the very verifier (and so JWKS cache) of the native exchange.
    ///   - audiences: `ISSUER_APPLE_CLIENT_IDS` and `ISSUER_APPLE_SERVICES_ID`.
    public init(verifier: IdentityTokenVerifier, audiences: Set<String>, pool: ConnectionPool, clock: any WallClock, events: any AccountEvents) {
        self.init(verifier: verifier, audiences: audiences, store: AppleNotificationStore(pool: pool), clock: clock, events: events)
    }

    init(verifier: IdentityTokenVerifier, audiences: Set<String>, store: any AppleNotificationStoring, clock: any WallClock, events: any AccountEvents) {
        self.verifier = verifier
        self.audiences = audiences
        self.store = store
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
            result = try await store.inTransaction { changes in try Self.apply(event, provider: provider, to: changes, now: now) }
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

    /// What one verified event changes: nothing twice for one `jti`, nothing for an Apple
    /// account no user has, and per kind the table of docs/reference.md, "Apple notifications".
    static func apply(
        _ event: AppleNotificationEvent, provider: String, to changes: any AppleNotificationChanges, now: Date
    ) throws -> (Outcome, UUID?) {
        guard try changes.recordOnce(jti: event.jti, type: event.kind.name, now: now) else { return (.duplicate, nil) }
        guard let userID = try changes.userID(provider: provider, subject: event.subject) else { return (.nothingToDo, nil) }
        switch event.kind {
        case .emailDisabled, .emailEnabled:
            try changes.setEmailForwarding(userID: userID, enabled: event.kind == .emailEnabled, at: event.time)
        case .consentRevoked:
            try changes.revokeConsent(userID: userID, by: event.time, now: now)
        case .accountDeleted:
            try changes.deleteAccount(userID: userID, now: now)
        case .unknown:
            return (.nothingToDo, userID)
        }
        return (.applied, userID)
    }
}

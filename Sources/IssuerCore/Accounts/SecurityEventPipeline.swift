import Foundation

/// docs/design.md, "Security events": what every provider's security events go through once
/// their decoder has verified and decoded them (Apple's server-to-server notifications,
/// docs/reference.md, "Apple notifications"; Google's security event tokens, RFC 8417,
/// docs/reference.md, "Google's account-protection events"). It records the delivery's id and
/// applies each event's effects in the same transaction, so a redelivery, or two processes
/// receiving the same one, change nothing twice. It knows no provider: which effects an event has,
/// and under which sender and providers, is the decoder's word.
public struct SecurityEventPipeline: Sendable {
    /// What one request from a provider carries, verified and decoded.
    struct Delivery: Sendable, Equatable {
        /// Whose ids these are (the received-event record's `sender`): an id is unique to its
        /// sender only (RFC 8417 §2.2).
        var sender: String
        /// Idempotency key: the token's `jti`, or what the decoder takes in its place.
        var id: String
        /// The providers whose identities the events' subjects name: each is looked up in each.
        var providers: [String]
        /// Its events, in the order their results are answered.
        var events: [SecurityEvent]
    }

    /// What one event did.
    struct EventResult: Sendable, Equatable {
        /// Whether it changed anything: a user has the identity and the event has effects.
        var applied = false
        /// The users with the identity it names, one per provider that has it.
        var users: [UUID] = []
        /// The user it deleted, if it did.
        var deleted: UUID?
    }

    /// What happened to one delivery, as every decoder answers it.
    public enum Outcome: Sendable, Equatable {
        /// At least one event changed something.
        case applied
        /// Nothing to do: no user has the identity, or no event is one we act on.
        case nothingToDo
        /// Its id was applied before.
        case duplicate

        /// The outcome of `apply`'s results: nil is a duplicate.
        init(_ results: [EventResult]?) {
            guard let results else {
                self = .duplicate
                return
            }
            self = results.contains(where: \.applied) ? .applied : .nothingToDo
        }
    }

    private let store: any SecurityEventStoring
    private let clock: any WallClock
    private let events: any AccountEvents

    /// Every delivery's changes run in one transaction of `store` (`SecurityEventStore`, which also
    /// queues the notices of the providers told of a deletion); deletions are counted in `events`.
    package init(store: any SecurityEventStoring, clock: any WallClock, events: any AccountEvents) {
        self.store = store
        self.clock = clock
        self.events = events
    }

    /// Applies one delivery: one result per event, in its order; nil when its id was applied
    /// before. A storage failure is thrown as `OAuthError.storage`, nothing applied, so that the
    /// provider delivers it again.
    func apply(_ delivery: Delivery) async throws(OAuthError) -> [EventResult]? {
        let now = clock.now
        let results: [EventResult]?
        do {
            results = try await store.inTransaction { changes in try Self.apply(delivery, to: changes, now: now) }
        } catch {
            throw .storage(error)
        }
        for (event, result) in zip(delivery.events, results ?? []) where result.deleted != nil {
            if let reason = event.deletionReason { events.accountDeleted(reason: reason.rawValue) }
        }
        return results
    }

    /// What a delivery changes: nothing twice for one id; each event that names a subject, for
    /// each of the delivery's providers that has that identity.
    static func apply(_ delivery: Delivery, to changes: any SecurityEventChanges, now: Date) throws -> [EventResult]? {
        let types = delivery.events.map(\.name).joined(separator: ",")
        guard try changes.recordOnce(sender: delivery.sender, id: delivery.id, types: types, now: now) else { return nil }
        return try delivery.events.map { event in
            var result = EventResult()
            guard let subject = event.subject else { return result }
            for provider in delivery.providers {
                guard let userID = try changes.userID(provider: provider, subject: subject) else { continue }
                result.users.append(userID)
                result.applied = result.applied || !event.effects.isEmpty
                for effect in event.effects {
                    if try apply(effect, provider: provider, subject: subject, userID: userID, to: changes, now: now) {
                        result.deleted = userID
                    }
                }
            }
            return result
        }
    }

    /// One effect on one identity and its user; answers whether it deleted the user.
    private static func apply(
        _ effect: SecurityEvent.Effect, provider: String, subject: String, userID: UUID, to changes: any SecurityEventChanges, now: Date
    ) throws -> Bool {
        switch effect {
        case .sessionsRevoked(let time, let reason):
            try changes.revokeSessions(userID: userID, begunBy: time, reason: reason, now: now)
        case .providerSessionsRevoked(let time, let reason):
            try changes.revokeSessions(userID: userID, through: provider, begunBy: time, reason: reason, now: now)
        case .heldGrantsDropped(let time):
            try changes.dropHeldGrants(userID: userID, keptBy: time)
        case .signInDisabled(let reason, let time):
            try changes.disable(provider: provider, subject: subject, reason: reason, at: time)
        case .signInEnabled(let time):
            try changes.enable(provider: provider, subject: subject, at: time)
        case .recorded(.emailForwarding(let enabled), let time):
            try changes.setEmailForwarding(userID: userID, enabled: enabled, at: time)
        case .recorded(.credentialChangeRequired, let time):
            try changes.requireCredentialChange(provider: provider, subject: subject, at: time)
        case .profileFromIdentityCleared:
            try changes.clearProfile(fromProvider: provider, subject: subject, userID: userID, now: now)
        case .identityRemoved(let reason):
            // No identity left: nobody can sign in as this user again, so it goes as account
            // deletion deletes it, its provider tokens revoked (sent by the background worker).
            guard try !changes.unlink(provider: provider, subject: subject, userID: userID) else { return false }
            return try changes.deleteAccount(userID: userID, reason: reason, revokeHeldTokens: true, now: now)
        case .accountDeleted(let reason, let revokeHeldTokens):
            return try changes.deleteAccount(userID: userID, reason: reason, revokeHeldTokens: revokeHeldTokens, now: now)
        }
        return false
    }
}

import Foundation
import Logging
import Postgres

/// docs/reference.md, "Google's account-protection events": applies Google's Cross-Account Protection (RISC) security event
/// tokens (RFC 8417), as `AppleNotifications` applies Apple's notifications. The token is verified
/// like an ID token, through a cache of Google's RISC keys; its events are applied once per `jti`,
/// in the same transaction that records the `jti`, so a redelivery or two processes receiving the
/// same token change nothing twice.
public struct GoogleRISC: Sendable {
    /// What happened to one token.
    public enum Outcome: Sendable, Equatable {
        /// At least one event changed something.
        case applied
        /// Nothing to do: no user has the identity, or no event is one we act on.
        case nothingToDo
        /// Its `jti` was applied before.
        case duplicate
    }

    /// Why a token was not applied.
    public enum Failure: Error, Sendable {
        /// It failed verification: RFC 8935 §2.4's `400`, nothing changed.
        case refused(SecurityEventError)
        /// Google's keys or the database could not be had: answered as this error (`503`, or
        /// `500` for our own fault), so that Google delivers it again.
        case failed(OAuthError)
    }

    /// A configured provider of kind `google`: the `provider` of its identities, and the `aud`
    /// values (its `native_audiences` and `client_id`) whose tokens concern it.
    public struct Provider: Sendable, Equatable {
        public var id: String
        public var audiences: Set<String>

        public init(id: String, audiences: Set<String>) {
            self.id = id
            self.audiences = audiences
        }

        /// The provider as its settings configure it.
        public init(_ settings: ProviderSettings) {
            self.init(id: settings.id, audiences: Set(settings.nativeAudiences + (settings.clientID.map { [$0] } ?? [])))
        }
    }

    /// Whose tokens are accepted: Google's RISC issuer, RS256 only.
    public static let identityProvider = IdentityProvider(name: "google-risc", issuer: ProviderSettings.Google.riscIssuer)

    private let verifier: IdentityTokenVerifier
    private let providers: [Provider]
    private let store: any GoogleRISCStoring
    private let clock: any WallClock
    private let events: any AccountEvents

    /// - Parameters:
    ///   - verifier: `identityProvider` over a cache of the keys at the providers' `risc_jwks_uri`.
    ///   - providers: every configured provider of kind `google`.
    public init(verifier: IdentityTokenVerifier, providers: [Provider], pool: ConnectionPool, clock: any WallClock, events: any AccountEvents) {
        self.init(verifier: verifier, providers: providers, store: GoogleRISCStore(pool: pool), clock: clock, events: events)
    }

    init(verifier: IdentityTokenVerifier, providers: [Provider], store: any GoogleRISCStoring, clock: any WallClock, events: any AccountEvents) {
        self.verifier = verifier
        self.providers = providers
        self.store = store
        self.clock = clock
        self.events = events
    }

    /// Verifies and applies one token.
    @discardableResult
    public func receive(token: String, logger: Logger) async throws(Failure) -> Outcome {
        let set: GoogleRISCToken
        do {
            set = try await verified(token)
        } catch .failed(let error) {
            events.googleSecurityEvent(type: "unavailable")
            logger.warning("Google security event not verified: Google's keys cannot be fetched; Google will retry", metadata: [
                "error": "\(error.debug ?? error.description)",
            ])
            throw .failed(error)
        } catch .refused(let refusal) {
            events.googleSecurityEvent(type: "invalid")
            logger.warning("Google security event refused", metadata: ["err": "\(refusal.code.rawValue)", "error": "\(refusal.debug)"])
            throw .refused(refusal)
        }
        let now = clock.now
        let providerIDs = providers.filter { !$0.audiences.isDisjoint(with: set.audiences) }.map(\.id)
        let applied: Applied
        do {
            applied = try await store.inTransaction { changes in try Self.apply(set, providers: providerIDs, to: changes, now: now) }
        } catch {
            throw .failed(.storage(error))
        }
        guard let results = applied.results else {
            events.googleSecurityEvent(type: "duplicate")
            logger.notice("Google security event", metadata: ["jti": "\(set.jti.escapingControlCharacters)", "outcome": "duplicate"])
            return .duplicate
        }
        for result in results {
            events.googleSecurityEvent(type: result.event.kind.name)
            if result.deleted != nil { events.accountDeleted(reason: AccountDeletion.Reason.googleAccountPurged.rawValue) }
            // Never Google's `sub`: the internal id is enough to follow the user.
            var metadata: Logger.Metadata = [
                "type": "\(result.event.kind.name)", "outcome": "\(result.applied ? "applied" : "nothing to do")",
                "user": "\(result.users.isEmpty ? "-" : result.users.map { $0.uuidString.lowercased() }.joined(separator: ","))",
            ]
            if let reason = result.event.reason { metadata["reason"] = "\(reason.escapingControlCharacters)" }
            if let state = result.event.state { metadata["state"] = "\(state)" }
            if let deleted = result.deleted { metadata["deleted"] = .identifier(deleted) }
            switch result.event.kind {
            case .accountDisabled, .credentialChangeRequired:
                // Recorded for operators (`issuer users show`); worth a look whatever the reason.
                logger.warning("Google security event", metadata: metadata)
            default:
                logger.notice("Google security event", metadata: metadata)
            }
        }
        return results.contains(where: \.applied) ? .applied : .nothingToDo
    }

    /// The signature (through the cache of Google's RISC keys), then the claims; each refusal
    /// named as RFC 8935 §2.4.1 names it.
    private func verified(_ token: String) async throws(Failure) -> GoogleRISCToken {
        let payload: Data
        do throws(SignatureCheckFailure) {
            payload = try await verifier.signedPayload(token)
        } catch {
            switch error {
            case .malformed(let reason):
                throw .refused(SecurityEventError(.invalidRequest, "The body is not a signed security event token.", debug: reason))
            case .criticalHeader:
                throw .refused(SecurityEventError(.invalidRequest, "The token has a crit header.", debug: "crit header"))
            case .algorithm(let reason):
                throw .refused(SecurityEventError(.invalidKey, "The token is not signed with RS256.", debug: reason))
            case .unknownKey:
                throw .refused(SecurityEventError(.invalidKey, "The token's kid is not one of Google's keys.", debug: "unknown kid"))
            case .signature:
                throw .refused(SecurityEventError(.authenticationFailed, "The token's signature does not verify.", debug: "bad signature"))
            case .keysUnavailable(let reason):
                throw .failed(.temporarilyUnavailable("Google's keys cannot be fetched; try again later.", debug: reason))
            }
        }
        do throws(SecurityEventError) {
            return try GoogleRISCToken(
                payload: payload, issuer: ProviderSettings.Google.riscIssuer,
                audiences: providers.reduce(into: Set<String>()) { $0.formUnion($1.audiences) }, now: clock.now,
                leeway: IdentityTokenVerifier.leeway)
        } catch {
            throw .refused(error)
        }
    }

    /// What one event did.
    struct EventResult: Sendable {
        var event: GoogleRISCEvent
        /// Whether it changed anything.
        var applied: Bool
        /// The users with the identity it concerns.
        var users: [UUID]
        /// The user deleted because the event removed its last identity.
        var deleted: UUID?
    }

    /// What a token did; nil results: its `jti` was applied before.
    struct Applied: Sendable {
        var results: [EventResult]?
    }

    /// What a verified token changes: nothing twice for one `jti`; each event that concerns an
    /// account, for each of `providers` that has the identity.
    static func apply(_ set: GoogleRISCToken, providers: [String], to changes: any GoogleRISCChanges, now: Date) throws -> Applied {
        let types = set.events.map(\.kind.name).joined(separator: ",")
        guard try changes.recordOnce(jti: set.jti, types: types, now: now) else {
            return Applied(results: nil)
        }
        var results: [EventResult] = []
        for event in set.events {
            var result = EventResult(event: event, applied: false, users: [])
            guard event.kind.concernsAccount, let subject = event.subject else {
                results.append(result)
                continue
            }
            for provider in providers {
                guard let userID = try changes.userID(provider: provider, subject: subject) else { continue }
                result.users.append(userID)
                result.applied = true
                if let deleted = try apply(event, subject: subject, provider: provider, userID: userID, set: set, to: changes, now: now) {
                    result.deleted = deleted
                }
            }
            results.append(result)
        }
        return Applied(results: results)
    }

    /// One event for one identity (the table of docs/reference.md, "Google's account-protection events"); answers the user
    /// deleted, if the event removed its last identity.
    private static func apply(
        _ event: GoogleRISCEvent, subject: String, provider: String, userID: UUID, set: GoogleRISCToken,
        to changes: any GoogleRISCChanges, now: Date
    ) throws -> UUID? {
        switch event.kind {
        case .sessionsRevoked, .tokensRevoked:
            // Google ended the user's sessions (or the tokens of its sign-ins here): every session
            // begun by the event ends; a sign-in after it is a new one.
            try changes.revokeSessions(userID: userID, begunBy: set.latestEventTime, reason: "google \(event.kind.name)", now: now)
        case .accountDisabled:
            if event.reason == "hijacking" {
                try changes.revokeSessions(
                    userID: userID, begunBy: set.latestEventTime, reason: "google account-disabled (hijacking)", now: now)
            }
            try changes.disable(provider: provider, subject: subject, reason: event.reason, at: set.issuedAt)
        case .accountEnabled:
            try changes.enable(provider: provider, subject: subject, at: set.issuedAt)
        case .credentialChangeRequired:
            try changes.requireCredentialChange(provider: provider, subject: subject, at: set.issuedAt)
        case .accountPurged:
            guard try !changes.unlink(provider: provider, subject: subject, userID: userID) else { return nil }
            // No identity left: nobody can sign in as this user again, so it goes as account
            // deletion deletes it. Any Apple token is queued for revocation (a user with no Apple
            // identity holds none), sent by the background worker.
            return try changes.deleteAccount(userID: userID, now: now) ? userID : nil
        case .verification, .unknown:
            break
        }
        return nil
    }
}

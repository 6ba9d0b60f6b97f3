import Foundation
import Logging

/// docs/reference.md, "Google's account-protection events": the decoder of Google's
/// Cross-Account Protection (RISC) security event tokens (RFC 8417) over `SecurityEventPipeline`
/// (docs/design.md, "Security events"), as `AppleNotifications` is of Apple's notifications. The
/// token is verified like an ID token, through a cache of Google's RISC keys, and its events read
/// as `SecurityEvent`s by the table of that section; the pipeline applies them once per `jti`.
public struct GoogleRISC: Sendable {
    /// What happened to one token: at least one event changed something, nothing to do (no user
    /// has the identity, or no event is one we act on), or a `jti` applied before.
    public typealias Outcome = SecurityEventPipeline.Outcome

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

    /// Whose `jti`s these are, in the record of received events.
    static let sender = "google"

    private let verifier: IdentityTokenVerifier
    private let providers: [Provider]
    private let pipeline: SecurityEventPipeline
    private let clock: any WallClock
    private let events: any AccountEvents

    /// - Parameters:
    ///   - verifier: `identityProvider` over a cache of the keys at the providers' `risc_jwks_uri`.
    ///   - providers: every configured provider of kind `google`.
    ///   - pipeline: what applies the events, as it applies every provider's.
    public init(
        verifier: IdentityTokenVerifier, providers: [Provider], pipeline: SecurityEventPipeline, clock: any WallClock,
        events: any AccountEvents
    ) {
        self.verifier = verifier
        self.providers = providers
        self.pipeline = pipeline
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
        let providerIDs = providers.filter { !$0.audiences.isDisjoint(with: set.audiences) }.map(\.id)
        let applied: [SecurityEventPipeline.EventResult]?
        do throws(OAuthError) {
            applied = try await pipeline.apply(Self.delivery(set, providers: providerIDs))
        } catch {
            throw .failed(error)
        }
        guard let applied else {
            events.googleSecurityEvent(type: "duplicate")
            logger.notice("Google security event", metadata: ["jti": "\(set.jti.escapingControlCharacters)", "outcome": "duplicate"])
            return .duplicate
        }
        for (event, result) in zip(set.events, applied) {
            events.googleSecurityEvent(type: event.kind.name)
            // Never Google's `sub`: the internal id is enough to follow the user.
            var metadata: Logger.Metadata = [
                "type": "\(event.kind.name)", "outcome": "\(result.applied ? "applied" : "nothing to do")",
                "user": "\(result.users.isEmpty ? "-" : result.users.map { $0.lowercaseText }.joined(separator: ","))",
            ]
            if let reason = event.reason { metadata["reason"] = "\(reason.escapingControlCharacters)" }
            if let state = event.state { metadata["state"] = "\(state)" }
            if let deleted = result.deleted { metadata["deleted"] = .identifier(deleted) }
            switch event.kind {
            case .accountDisabled, .credentialChangeRequired:
                // Recorded for operators (`issuer users show`); worth a look whatever the reason.
                logger.warning("Google security event", metadata: metadata)
            default:
                logger.notice("Google security event", metadata: metadata)
            }
        }
        return Outcome(applied)
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

    /// What a verified token is, for the pipeline: its events about the identities of
    /// `providers` (the Google providers its `aud` names), and per kind the effects of the table of
    /// docs/reference.md, "Google's account-protection events".
    static func delivery(_ set: GoogleRISCToken, providers: [String]) -> SecurityEventPipeline.Delivery {
        SecurityEventPipeline.Delivery(sender: sender, id: set.jti, providers: providers, events: set.events.map { event in
            SecurityEvent(name: event.kind.name, subject: event.subject, effects: effects(of: event, in: set))
        })
    }

    /// What one event does to the user with the identity it names.
    private static func effects(of event: GoogleRISCEvent, in set: GoogleRISCToken) -> [SecurityEvent.Effect] {
        switch event.kind {
        case .sessionsRevoked, .tokensRevoked:
            // Google ended the user's sessions (or the tokens of its sign-ins here): every session
            // begun by the event ends; a sign-in after it is a new one.
            return [.sessionsRevoked(begunBy: set.latestEventTime, reason: "google \(event.kind.name)")]
        case .accountDisabled:
            let disabled = SecurityEvent.Effect.signInDisabled(reason: event.reason, at: set.issuedAt)
            guard event.reason == "hijacking" else { return [disabled] }
            return [.sessionsRevoked(begunBy: set.latestEventTime, reason: "google account-disabled (hijacking)"), disabled]
        case .accountEnabled:
            return [.signInEnabled(at: set.issuedAt)]
        case .credentialChangeRequired:
            return [.recorded(.credentialChangeRequired, at: set.issuedAt)]
        case .accountPurged:
            // A user left with no identity is deleted, any Apple token it holds queued for
            // revocation (a user with no Apple identity holds none).
            return [.identityRemoved(orphanDeletedFor: .googleAccountPurged)]
        case .verification, .unknown:
            return []
        }
    }
}

import Foundation
import Logging

/// One person, several providers (docs/reference.md, "Linked identities"): `GET /account` shows
/// the user's identities; `POST /account/identities` links one more and
/// `DELETE /account/identities/{provider}` unlinks one, both with the two proofs of one session
/// (`SessionProof`). Links are explicit and made from a signed-in session: never by e-mail here.
public struct AccountIdentities: Sendable {
    private let exchanges: ProviderExchanges
    private let store: any AccountIdentitiesStoring
    private let revocations: AppleRevocationQueue
    private let clock: any WallClock
    private let immediateTimeout: Duration
    private let events: any AccountEvents

    /// - Parameter store: `AccountIdentitiesStore`, which also queues the notices of the providers
    ///   told when their identity leaves a user (`DeletionNoticeQueue.providers`): an unlink tells
    ///   them as a deletion does.
    package init(
        exchanges: ProviderExchanges, store: any AccountIdentitiesStoring, revocations: AppleRevocationQueue,
        clock: any WallClock, events: any AccountEvents = UncountedAccountEvents(), immediateTimeout: Duration = .seconds(2)
    ) {
        self.events = events
        self.exchanges = exchanges
        self.store = store
        self.revocations = revocations
        self.clock = clock
        self.immediateTimeout = immediateTimeout
    }

    /// The user the bearer names and its identities; `invalid_token` when its session is not live.
    public func account(bearer: AccessTokenVerifier.Bearer) async throws(OAuthError) -> (userID: UUID, identities: [LinkedIdentity]) {
        let identities: [LinkedIdentity]?
        do {
            identities = try await store.identities(userID: bearer.userID, sessionID: bearer.sessionID, now: clock.now)
        } catch {
            throw .storage(error)
        }
        guard let identities else {
            throw OAuthError(.invalidToken, "The access token is invalid.", debug: "session revoked or expired")
        }
        return (bearer.userID, identities)
    }

    /// Links the identity `idToken` (or, for a provider that takes them, `accessToken`) proves,
    /// verified as that provider's native sign-in verifies it, to the user both proofs name.
    public func link(
        provider: String, idToken: String?, accessToken: String? = nil, nonce: String?, authorizationCode: String? = nil,
        by proven: SessionProof.Proven, logger: Logger
    ) async throws(OAuthError) -> (userID: UUID, identities: [LinkedIdentity]) {
        guard let exchange = exchanges.exchange(named: provider) else {
            throw .invalidRequest("The provider is not one this server offers.")
        }
        let credential: NativeCredential
        switch (idToken.flatMap { $0.isEmpty ? nil : $0 }, accessToken.flatMap { $0.isEmpty ? nil : $0 }) {
        case (let idToken?, nil): credential = .idToken(idToken)
        case (nil, let accessToken?) where exchange.takesAccessTokens: credential = .accessToken(accessToken)
        case (nil, nil), (nil, _?): throw .invalidRequest("The id_token parameter is required.")
        case (_?, _?): throw .invalidRequest("Send exactly one of id_token and access_token.")
        }
        if let authorizationCode, authorizationCode.isEmpty || authorizationCode.utf8.count > AppleTokenCustody.maximumCodeLength
            || authorizationCode.containsControlCharacters {
            throw .invalidRequest("authorization_code must be at most \(AppleTokenCustody.maximumCodeLength) bytes without control characters.")
        }
        let identity = try await exchange.verifiedIdentity(credential, nonce: nonce)
        let outcome: AccountIdentities.Linked
        do {
            outcome = try await store.link(identity, userID: proven.userID, sessionID: proven.sessionID, now: clock.now)
        } catch {
            throw .storage(error)
        }
        let metadata: Logger.Metadata = ["user": .identifier(proven.userID), "provider": "\(provider)"]
        switch outcome {
        case .linked:
            events.identityLinked(provider: provider, by: "user")
            logger.notice("identity linked", metadata: metadata)
            // What the provider's connector keeps after a sign-in it keeps after a link too (Apple's
            // code, docs/reference.md, "Apple token custody").
            await exchange.linked(userID: proven.userID, identity: identity, authorizationCode: authorizationCode, logger: logger)
        case .alreadyLinked:
            break
        case .inUse:
            logger.info("identity link refused: it belongs to another user", metadata: metadata)
            throw OAuthError(.identityInUse, "This account is already linked to another user.")
        case .providerTaken:
            logger.info("identity link refused: the user has an identity of that provider", metadata: metadata)
            throw OAuthError(.providerAlreadyLinked, "An account of this provider is already linked; unlink it first.")
        case .sessionEnded:
            throw SessionProof.sessionEnded
        }
        return try await account(proven, logger: logger)
    }

    /// Unlinks the user's identity of `provider`; the last one stays (delete the account instead).
    /// Unlinking Apple revokes the Apple token held, as account deletion does.
    public func unlink(provider: String, by proven: SessionProof.Proven, logger: Logger) async throws(OAuthError) {
        let outcome: AccountIdentities.Unlinked
        do {
            outcome = try await store.unlink(provider: provider, userID: proven.userID, sessionID: proven.sessionID, now: clock.now)
        } catch {
            throw .storage(error)
        }
        switch outcome {
        case .sessionEnded:
            throw SessionProof.sessionEnded
        case .notLinked:
            throw OAuthError(.invalidRequest, "No identity of that provider is linked to this user.", status: 404)
        case .lastIdentity:
            throw OAuthError(.lastIdentity, "This is the only way to sign in to this account; delete the account instead.")
        case .unlinked(let claimed):
            events.identityUnlinked(provider: provider)
            logger.notice("identity unlinked", metadata: [
                "user": .identifier(proven.userID), "provider": "\(provider)", "apple_revocations": "\(claimed.count)",
            ])
            if !claimed.isEmpty { await revocations.attempt(claimed, timeout: immediateTimeout, logger: logger) }
        }
    }

    private func account(_ proven: SessionProof.Proven, logger: Logger) async throws(OAuthError) -> (userID: UUID, identities: [LinkedIdentity]) {
        do {
            return (proven.userID, try await store.identities(userID: proven.userID, sessionID: proven.sessionID, now: clock.now) ?? [])
        } catch {
            throw .storage(error)
        }
    }
}

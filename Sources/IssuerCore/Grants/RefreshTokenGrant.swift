import Crypto
import Foundation
import Logging

/// RFC 6749 §6 refresh with the rotation (docs/reference.md, "Refresh tokens and sessions"): every use answers a successor and spends the
/// presented token; a retry within `ISSUER_REFRESH_REUSE_GRACE` answers the same successor; a
/// spent token after that revokes its whole session (theft).
///
/// Steps: client → token shape → one rotation statement → decide (a pure function of what it
/// returned) → mint. Only the theft path costs a second statement. A DPoP proof was verified
/// before (docs/reference.md, "DPoP"); the rotation statement compares its key with the session's
/// before it touches the token, so a bound token without its key changes nothing.
public struct RefreshTokenGrant: Sendable {
    /// One refresh request, parsed.
    public struct Request: Sendable {
        /// The presented `refresh_token`, as sent.
        public var refreshToken: String
        /// `client_id`: must be the client the token was issued to.
        public var clientID: String
        /// RFC 6749 §6 `scope`: may only narrow the session's scope; nil keeps it.
        public var scope: String?
        /// The thumbprint of the request's DPoP proof, verified before the grant runs
        /// (docs/reference.md, "DPoP"): a bound session refreshes only with its own key's.
        public var dpopThumbprint: String?
        /// That proof, when its `jti` is still to be recorded: the rotation statement does it, so
        /// that a bound refresh stays one round trip.
        public var dpopProof: DPoPProof?

        /// Only `refreshToken` and `clientID` are required; a `dpopProof` gives the thumbprint too.
        public init(
            refreshToken: String, clientID: String, scope: String? = nil, dpopThumbprint: String? = nil, dpopProof: DPoPProof? = nil
        ) {
            self.refreshToken = refreshToken
            self.clientID = clientID
            self.scope = scope
            self.dpopThumbprint = dpopProof?.thumbprint ?? dpopThumbprint
            self.dpopProof = dpopProof
        }
    }

    private let store: any RefreshRotationStoring
    private let clients: ClientRegistry
    private let successorKey: [UInt8]
    private let responder: TokenResponder
    private let clock: any WallClock
    private let refreshTokenTTL: Duration
    private let grace: Duration
    private let events: any AccountEvents

    /// - Parameters:
    ///   - stores: the rotation and the revocation on reuse: `RefreshGrantStores` over PostgreSQL,
    ///     or a fake for the decision tests.
    ///   - secret: the server secret; successors are derived under its `refresh-token-successor` subkey.
    ///   - events: told of every detected reuse (for metrics).
    public init(
        stores: any RefreshRotationStoring, clients: ClientRegistry, secret: ServerSecret, responder: TokenResponder,
        clock: any WallClock, refreshTokenTTL: Duration, grace: Duration, events: any AccountEvents = UncountedAccountEvents()
    ) {
        self.store = stores
        self.clients = clients
        self.successorKey = RefreshToken.successorKey(from: secret)
        self.responder = responder
        self.clock = clock
        self.refreshTokenTTL = refreshTokenTTL
        self.grace = grace
        self.events = events
    }

    /// - Parameter logger: the request's logger, so every line carries its request id.
    public func refresh(_ request: Request, logger: Logger) async throws(OAuthError) -> TokenResponse {
        let client = try clients.authenticate(request.clientID)
        try client.checkProof(request.dpopThumbprint)
        let requestedScopes = try request.scope.map { scope throws(OAuthError) in try ScopeRequest.resolve(scope, for: client) }
        let presented = RefreshToken(value: request.refreshToken)
        guard RefreshToken.isWellFormed(request.refreshToken) else {
            throw .invalidGrant("The refresh token is invalid.", debug: "malformed refresh token")
        }
        let successor = presented.successor(key: SymmetricKey(data: successorKey))
        let now = clock.now
        let record: RefreshRecord?
        do {
            record = try await store.rotate(
                tokenHash: presented.hash, successorHash: successor.hash, clientID: client.clientID,
                requestedScopes: requestedScopes, now: now, successorExpiresAt: now.addingTimeInterval(refreshTokenTTL.timeInterval),
                dpopThumbprint: request.dpopThumbprint, dpopProof: request.dpopProof,
                // An identical resend within the grace is the retry after a lost answer, not a replay.
                resendSince: now.addingTimeInterval(-grace.timeInterval))
        } catch is DPoPProofReplayed {
            throw .invalidDPoPProof("The DPoP proof's jti was used before.")
        } catch {
            throw .storage(error)
        }
        switch RefreshOutcome.decide(record: record, successorHash: successor.hash, now: now, grace: grace) {
        case .rotated(let record):
            return try answer(record, client: client, requestedScopes: requestedScopes, successor: successor)
        case .retry(let record):
            logger.info("refresh retried within the grace window", metadata: ["sid": .identifier(record.sessionID)])
            return try answer(record, client: client, requestedScopes: requestedScopes, successor: successor)
        case .reuse(let record):
            events.refreshReuseDetected()
            logger.warning("refresh token reuse detected; session revoked", metadata: [
                "sid": .identifier(record.sessionID), "sub": "\(record.user.subject)", "generation": "\(record.generation)",
            ])
            do {
                try await store.revokeSession(record.sessionID, reason: "refresh token reuse", at: now)
            } catch {
                throw .storage(error)
            }
            throw .invalidGrant("The refresh token is invalid.", debug: "reuse of a spent refresh token")
        case .scopeNotGranted:
            throw .invalidScope("The requested scope exceeds the scope originally granted.")
        case .refused(let reason):
            throw .invalidGrant("The refresh token is invalid.", debug: reason)
        }
    }

    /// RFC 6749 §6: the new refresh token keeps the session's scope; only this access token is
    /// narrowed. OIDC Core §12.2: no nonce in a refreshed ID token, and none at all for a client
    /// that asked not to get one (`id_token_on_refresh`).
    private func answer(
        _ record: RefreshRecord, client: OAuthClient, requestedScopes: [String]?, successor: RefreshToken
    ) throws(OAuthError) -> TokenResponse {
        try responder.respond(
            user: record.user, clientID: client.clientID, scopes: requestedScopes ?? record.scopes,
            sessionID: record.sessionID, authTime: record.authTime, sessionExpiresAt: record.sessionExpiresAt,
            nonce: nil, refreshToken: successor, includesIDToken: client.idTokenOnRefresh, dpopThumbprint: record.dpopThumbprint)
    }
}

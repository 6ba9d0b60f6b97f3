import Foundation
import Logging

/// RFC 6749 §4.1.3 with RFC 7636 §4.5, docs/reference.md, "Hosted sign-in": redeems a one-time code of the hosted flow.
///
/// Steps: client → parameters → one statement (consume + first refresh token) → mint. A failed
/// redemption costs a second statement that spends the code and revokes its session.
public struct AuthorizationCodeGrant: Sendable {
    /// One redemption request, parsed.
    public struct Request: Sendable {
        /// `code`.
        public var code: String
        /// `redirect_uri`: the one the authorization request named.
        public var redirectURI: String
        /// `client_id`: the client the code was issued to.
        public var clientID: String
        /// `code_verifier` (RFC 7636 §4.5).
        public var codeVerifier: String
        /// The thumbprint of the request's DPoP proof, verified before the grant runs: the session
        /// is bound to that key from this redemption on (docs/reference.md, "DPoP").
        public var dpopThumbprint: String?

        /// All four are required (docs/reference.md, "Hosted sign-in"); a DPoP proof is optional.
        public init(code: String, redirectURI: String, clientID: String, codeVerifier: String, dpopThumbprint: String? = nil) {
            self.code = code
            self.redirectURI = redirectURI
            self.clientID = clientID
            self.codeVerifier = codeVerifier
            self.dpopThumbprint = dpopThumbprint
        }
    }

    private let store: any AuthorizationCodeStoring
    private let clients: ClientRegistry
    private let responder: TokenResponder
    private let clock: any WallClock
    private let refreshTokenTTL: TimeInterval

    /// - Parameters:
    ///   - store: the codes' storage: `AuthorizationCodeStore`, or a fake for the decision tests.
    ///   - refreshTokenTTL: `ISSUER_REFRESH_TOKEN_TTL`.
    public init(store: any AuthorizationCodeStoring, clients: ClientRegistry, responder: TokenResponder, clock: any WallClock, refreshTokenTTL: Duration) {
        self.store = store
        self.clients = clients
        self.responder = responder
        self.clock = clock
        self.refreshTokenTTL = refreshTokenTTL.timeInterval
    }

    /// - Parameter logger: the request's logger, so every line carries its request id.
    public func redeem(_ request: Request, logger: Logger) async throws(OAuthError) -> TokenResponse {
        let client = try clients.authenticate(request.clientID)
        try client.checkProof(request.dpopThumbprint)
        guard PKCE.isValidVerifier(request.codeVerifier) else {
            throw .invalidGrant("The code_verifier is not a valid PKCE verifier.")
        }
        guard AuthorizationCode.isWellFormed(request.code) else {
            throw .invalidGrant("The authorization code is invalid, expired or already used.", debug: "malformed code")
        }
        let code = AuthorizationCode(value: request.code)
        let refreshToken = RefreshToken.generate()
        let now = clock.now
        let redeemed: AuthorizationCodeGrant.Redeemed?
        do {
            redeemed = try await store.redeem(
                code: code, clientID: client.clientID, redirectURI: request.redirectURI,
                codeChallenge: PKCE.challenge(forVerifier: request.codeVerifier), refreshToken: refreshToken,
                refreshTokenExpiresAt: now.addingTimeInterval(refreshTokenTTL), now: now, dpopThumbprint: request.dpopThumbprint)
        } catch {
            throw .storage(error)
        }
        guard let redeemed else {
            let revoked: Bool
            do { revoked = try await store.spendAndRevoke(code: code, now: now) } catch { throw .storage(error) }
            logger.warning("authorization code refused", metadata: ["session_revoked": "\(revoked)", "client_id": "\(client.clientID)"])
            throw .invalidGrant("The authorization code is invalid, expired or already used.")
        }
        logger.info("authorization code redeemed", metadata: ["sid": .identifier(redeemed.sessionID), "client_id": "\(client.clientID)"])
        return try responder.respond(
            user: redeemed.user, clientID: client.clientID, scopes: redeemed.scopes, sessionID: redeemed.sessionID,
            authTime: redeemed.authTime, sessionExpiresAt: redeemed.sessionExpiresAt, nonce: redeemed.nonce,
            refreshToken: refreshToken, dpopThumbprint: redeemed.dpopThumbprint)
    }
}

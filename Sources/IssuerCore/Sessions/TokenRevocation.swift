import Foundation
import Logging

/// RFC 7009 token revocation (docs/reference.md, "Revocation"): a refresh token revokes its whole session; an access
/// token issued here revokes its session (`sid`). Unknown, malformed, expired or already revoked
/// tokens, and tokens of another client, are answered exactly like a success (RFC 7009 §2.2), so
/// the endpoint reveals nothing about tokens it is shown.
public struct TokenRevocation: Sendable {
    private let revocation: any SessionRevocationStoring
    private let clients: ClientRegistry
    private let verifier: AccessTokenVerifier
    private let ring: @Sendable () -> KeyRing
    private let clock: any WallClock

    /// - Parameter ring: the current key ring, against which presented access tokens are verified.
    public init(
        revocation: any SessionRevocationStoring, clients: ClientRegistry, verifier: AccessTokenVerifier,
        ring: @escaping @Sendable () -> KeyRing, clock: any WallClock
    ) {
        self.revocation = revocation
        self.clients = clients
        self.verifier = verifier
        self.ring = ring
        self.clock = clock
    }

    /// RFC 7009 §2.1. The token's shape tells a refresh token from an access token, so
    /// `token_type_hint` is accepted and not needed (§2.1 allows ignoring it).
    public func revoke(token: String, tokenTypeHint: String?, clientID: String, logger: Logger) async throws(OAuthError) {
        let client = try clients.authenticate(clientID)
        let now = clock.now
        do {
            if RefreshToken.isWellFormed(token) {
                let revoked = try await revocation.revoke(
                    refreshTokenHash: RefreshToken(value: token).hash, clientID: client.clientID, reason: "revoked by client", at: now)
                if revoked { logger.info("session revoked by refresh token", metadata: ["client_id": "\(client.clientID)"]) }
            } else if let claims = try? verifier.verify(token, ring: ring()), claims.clientID == client.clientID,
                      let sessionID = UUID(uuidString: claims.sessionID) {
                let revoked = try await revocation.revoke(sessionID: sessionID, clientID: client.clientID, reason: "revoked by client", at: now)
                if revoked { logger.info("session revoked by access token", metadata: ["sid": "\(claims.sessionID)"]) }
            }
        } catch {
            throw .storage(error)
        }
    }
}

import Foundation
import Logging

/// SPEC §3.8 `DELETE /account`: the bearer access token is checked as `/userinfo` checks it
/// (SPEC §3.6), then its user is deleted, on the condition, checked inside the deletion's
/// transaction, that the token's session is still live.
public struct AccountService: Sendable {
    private let verifier: AccessTokenVerifier
    private let ring: @Sendable () -> KeyRing
    private let deletion: AccountDeletion

    /// - Parameter ring: the current key ring, against which access tokens are verified.
    public init(verifier: AccessTokenVerifier, ring: @escaping @Sendable () -> KeyRing, deletion: AccountDeletion) {
        self.verifier = verifier
        self.ring = ring
        self.deletion = deletion
    }

    /// Deletes the token's user; `invalid_token` for any token or session problem (RFC 6750 §3.1).
    public func deleteAccount(accessToken: String, logger: Logger) async throws(OAuthError) {
        let bearer = try verifier.bearer(accessToken, ring: ring())
        let (userID, sessionID) = (bearer.userID, bearer.sessionID)
        let outcome: AccountDeletion.Outcome?
        do {
            outcome = try await deletion.delete(userID: userID, sessionID: sessionID, reason: .userRequest, logger: logger)
        } catch {
            throw .storage(error)
        }
        guard outcome != nil else {
            throw OAuthError(.invalidToken, "The access token is invalid.", debug: "session revoked, expired or deleted")
        }
    }
}

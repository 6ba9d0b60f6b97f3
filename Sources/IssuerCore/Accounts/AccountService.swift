import Foundation
import Logging

/// `DELETE /account` (docs/reference.md, "Account deletion"): the two proofs of one session
/// (`SessionProof`), then the user is deleted, on the condition, checked inside the deletion's
/// transaction, that the session is still live.
public struct AccountService: Sendable {
    private let proof: SessionProof
    private let deletion: AccountDeletion

    /// - Parameter proof: the verification step every account-changing request goes through.
    public init(proof: SessionProof, deletion: AccountDeletion) {
        self.proof = proof
        self.deletion = deletion
    }

    /// Deletes the user both proofs name. `invalid_token` for the access token (RFC 6750 §3.1),
    /// `invalid_request` without a refresh token, `invalid_grant` for one that fails; nothing is
    /// deleted in any of those cases.
    /// - Parameter body: the body's `refresh_token`, or the error reading the body gave.
    public func deleteAccount(bearer: AccessTokenVerifier.Bearer, body: Result<String?, OAuthError>, logger: Logger) async throws(OAuthError) {
        let proven = try await proof.prove(bearer: bearer, body: body, logger: logger)
        let outcome: AccountDeletion.Outcome?
        do {
            outcome = try await deletion.delete(userID: proven.userID, sessionID: proven.sessionID, reason: .userRequest, logger: logger)
        } catch {
            throw .storage(error)
        }
        guard outcome != nil else {
            throw OAuthError(.invalidToken, "The access token is invalid.", debug: "session revoked, expired or deleted")
        }
    }
}

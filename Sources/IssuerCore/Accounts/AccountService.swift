import Foundation
import Logging

/// `DELETE /account` (docs/reference.md, "Account deletion"): for a session the two proofs
/// (`SessionProof`) name, the user is deleted, on the condition, checked inside the deletion's
/// transaction, that the session is still live.
public struct AccountService: Sendable {
    private let deletion: AccountDeletion

    public init(deletion: AccountDeletion) {
        self.deletion = deletion
    }

    /// Deletes the user both proofs name; `invalid_token` (RFC 6750 §3.1), deleting nothing, when
    /// the proving session ended after its proofs were read.
    public func deleteAccount(_ proven: SessionProof.Proven, logger: Logger) async throws(OAuthError) {
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

import Foundation
import IssuerCore

/// The two stores a refresh touches: the rotation on every use, the revocation only on reuse.
public struct RefreshGrantStores: RefreshRotationStoring {
    let rotation: RefreshRotationStore
    let revocation: SessionRevocationStore

    public init(rotation: RefreshRotationStore, revocation: SessionRevocationStore) {
        self.rotation = rotation
        self.revocation = revocation
    }

    public func rotate(
        tokenHash: [UInt8], successorHash: [UInt8], clientID: String, requestedScopes: [String]?, now: Date,
        successorExpiresAt: Date, dpopThumbprint: String?, dpopProof: DPoPProof?, resendSince: Date?
    ) async throws -> RefreshRecord? {
        try await rotation.rotate(
            tokenHash: tokenHash, successorHash: successorHash, clientID: clientID, requestedScopes: requestedScopes, now: now,
            successorExpiresAt: successorExpiresAt, dpopThumbprint: dpopThumbprint, dpopProof: dpopProof, resendSince: resendSince)
    }

    public func revokeSession(_ sessionID: UUID, reason: String, at now: Date) async throws {
        _ = try await revocation.revoke(sessionID: sessionID, reason: reason, at: now)
    }
}

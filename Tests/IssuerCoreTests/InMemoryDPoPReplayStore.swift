import Foundation
@testable import IssuerCore
import Synchronization

/// `DPoPReplayStoring` in memory, held to the same contract as `DPoPReplayStore`
/// (`DPoPReplayStoringContractTests`): a proof is remembered per key and `jti` until it could no
/// longer be accepted; a row past that is replaced.
final class InMemoryDPoPReplayStore: DPoPReplayStoring {
    private struct Seen {
        var proofHash: [UInt8]
        var seenAt: Date
        var expiresAt: Date
    }

    private struct Key: Hashable {
        var jkt: String
        var jti: String
    }

    private let seen = Mutex<[Key: Seen]>([:])

    func record(_ proof: DPoPProof, now: Date, resendSince: Date?) async throws -> Bool {
        let key = Key(jkt: proof.thumbprint, jti: proof.jwtID)
        let expiresAt = max(proof.issuedAt.addingTimeInterval(DPoPProofVerifier.window + 1), now)
        return seen.withLock { seen in
            guard var row = seen[key], row.expiresAt >= now else {
                seen[key] = Seen(proofHash: proof.proofHash, seenAt: now, expiresAt: expiresAt)
                return true
            }
            guard row.proofHash == proof.proofHash, let resendSince, row.seenAt >= resendSince else { return false }
            row.expiresAt = max(row.expiresAt, expiresAt)
            seen[key] = row
            return true
        }
    }
}

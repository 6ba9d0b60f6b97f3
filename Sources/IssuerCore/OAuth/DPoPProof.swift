import Foundation

/// A `DPoP` proof whose signature and claims passed `DPoPProofVerifier` (RFC 9449 §4.3), not yet
/// checked against the replay memory (`DPoPReplayStore`). docs/reference.md, "DPoP".
public struct DPoPProof: Sendable, Equatable {
    /// The RFC 7638 thumbprint of the proof's `jwk`: the `jkt` a session is bound to (RFC 9449 §6.1).
    public var thumbprint: String
    /// `jti` (RFC 9449 §4.2): unique per proof for that key.
    public var jwtID: String
    /// `iat` (RFC 9449 §4.2).
    public var issuedAt: Date
    /// `ath` (RFC 9449 §4.2): base64url SHA-256 of the access token the proof accompanies, if any.
    public var accessTokenHash: String?
    /// `nonce` (RFC 9449 §4.2), if the proof carries one.
    public var nonce: String?
    /// SHA-256 of the compact proof as sent: how the replay memory recognises an identical resend
    /// (the same request retried after a lost answer) apart from another proof reusing a `jti`.
    public var proofHash: [UInt8]

    /// Fields as described; public so tests and other modules can build one.
    public init(thumbprint: String, jwtID: String, issuedAt: Date, accessTokenHash: String?, nonce: String?, proofHash: [UInt8]) {
        self.thumbprint = thumbprint
        self.jwtID = jwtID
        self.issuedAt = issuedAt
        self.accessTokenHash = accessTokenHash
        self.nonce = nonce
        self.proofHash = proofHash
    }
}

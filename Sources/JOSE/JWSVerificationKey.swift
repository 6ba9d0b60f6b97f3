import Foundation

/// A public key that verifies JWS signatures of exactly one algorithm: RS256 for RSA, ES256 for P-256.
///
/// Tying the algorithm to the key rather than to the token is what RFC 8725 §3.1 asks of verifiers: a token
/// chooses its own `alg`, so a key used under whatever the token names invites algorithm confusion.
public enum JWSVerificationKey: Sendable, Equatable {
    /// An RSA key, for RS256 (RFC 7518 §3.3).
    case rsa(RSAPublicKey)
    /// An EC key on P-256, for ES256 (RFC 7518 §3.4).
    case p256(P256PublicKey)

    /// The one algorithm the key verifies: RS256 for RSA, ES256 for P-256. A JWS whose `alg` is not this is
    /// refused before its signature is checked (RFC 8725 §3.1).
    public var algorithm: JWSAlgorithm {
        switch self {
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// Whether `signature` is valid over `message` under this key's algorithm (RFC 7515 §5.2 step 8).
    func verify(signature: Data, message: [UInt8]) -> Bool {
        switch self {
        case .rsa(let key): key.verify(signature: signature, message: message)
        case .p256(let key): key.verify(signature: signature, message: message)
        }
    }

    /// Keys are equal when they are the same key material: RSA `(n, e)` (RFC 8017 §3.1) or the same P-256 point.
    public static func == (lhs: JWSVerificationKey, rhs: JWSVerificationKey) -> Bool {
        switch (lhs, rhs) {
        case (.rsa(let a), .rsa(let b)): a === b || (a.modulus == b.modulus && a.exponent == b.exponent)
        case (.p256(let a), .p256(let b)): a == b
        default: false
        }
    }
}

import Crypto
import Foundation

/// An elliptic curve public key on P-256 (RFC 7518 §6.2.1, `crv` `"P-256"`) that verifies ES256 signatures
/// (RFC 7518 §3.4: ECDSA over P-256 with SHA-256).
///
/// Built on swift-crypto rather than libcrypto like the RSA keys: verification is all this module does with
/// P-256, speed is no concern there, and swift-crypto's API takes the JWK's coordinates and the JWS's raw
/// signature as they are, with no DER to assemble by hand.
public struct P256PublicKey: Sendable, Equatable {
    /// The x coordinate, 32 big-endian octets (RFC 7518 §6.2.1.2).
    package let x: [UInt8]
    /// The y coordinate, 32 big-endian octets (RFC 7518 §6.2.1.3).
    package let y: [UInt8]
    private let key: P256.Signing.PublicKey

    /// Octets of one coordinate, and of each of R and S in a signature (RFC 7518 §3.4, §6.2.1.2).
    static let coordinateLength = 32

    /// Builds a key from its affine coordinates, already base64url-decoded.
    ///
    /// RFC 7518 §6.2.1.2 makes each coordinate exactly 32 octets for P-256, leading zeros included, so no other
    /// length is accepted. A point that is not on the curve is refused too: verifying against one is the
    /// invalid-curve attack's starting point, and such a key is never what a provider meant to publish.
    init(x: [UInt8], y: [UInt8]) throws {
        guard x.count == Self.coordinateLength, y.count == Self.coordinateLength,
            let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
        else { throw JOSEError.invalidKey }
        self.x = x
        self.y = y
        self.key = key
    }

    /// Verifies an ES256 signature (RFC 7518 §3.4) over `message`.
    ///
    /// A JWS carries the signature as the 64 octets R || S, not as the DER `ECDSA-Sig-Value` that X.509 and most
    /// crypto libraries use (RFC 7518 §3.4), so a DER signature or any other length is simply not valid. Every
    /// failure reads the same to a JWS validator (RFC 7515 §5.2 step 8), hence a plain `Bool`.
    public func verify(signature: Data, message: [UInt8]) -> Bool {
        guard signature.count == 2 * Self.coordinateLength,
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        else { return false }
        // Hashes `message` with SHA-256 itself; R and S outside [1, n-1] fail inside.
        return key.isValidSignature(ecdsa, for: message)
    }

    /// Two keys are equal when they are the same point (RFC 7518 §6.2.1).
    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y
    }
}

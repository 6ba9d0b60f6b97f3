import Crypto
import Foundation
import JOSE

/// RFC 7636 Proof Key for Code Exchange, `S256` only (docs/reference.md, "Hosted sign-in": `plain` is refused, RFC 9700
/// §2.1.1).
public enum PKCE {
    /// The one method accepted.
    public static let method = "S256"

    /// RFC 7636 §4.2: `BASE64URL(SHA256(ASCII(code_verifier)))`.
    public static func challenge(forVerifier verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// RFC 7636 §4.1: 43 to 128 characters of `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"`.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy(isUnreserved)
    }

    /// RFC 7636 §4.2: an S256 challenge is 43 base64url characters (a SHA-256 digest).
    public static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && challenge.utf8.allSatisfy(isUnreserved)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}

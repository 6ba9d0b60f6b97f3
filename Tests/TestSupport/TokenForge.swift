import Foundation
import JOSE

/// Builds compact serializations by hand, for tokens no honest signer would produce (RFC 7515
/// §7.1): odd headers, missing members, foreign signatures.
public enum TokenForge {
    /// `header.payload.signature` from raw text, with any signature bytes.
    public static func token(header: String, payload: String, signature: [UInt8] = []) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
            + Base64URL.encode(signature)
    }

    /// A correctly RS256-signed token over arbitrary header and payload text.
    public static func signed(header: String, payload: String, key: RSAPrivateKey) throws -> String {
        try signed(header: Data(header.utf8), payload: Data(payload.utf8), key: key)
    }

    /// A correctly RS256-signed token over arbitrary header and payload bytes.
    public static func signed(header: Data, payload: Data, key: RSAPrivateKey) throws -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }
}

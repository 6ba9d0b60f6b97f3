import Crypto
import Foundation
import JOSE

/// An opaque refresh token (RFC 6749 §1.5, docs/reference.md, "Refresh tokens and sessions"): 256 random bits, base64url. Only its
/// SHA-256 is stored; the plain value exists in the response alone.
public struct RefreshToken: Sendable, Equatable {
    /// The value handed to the client.
    public let value: String

    /// Wraps a presented value unchecked; see `isWellFormed(_:)`.
    public init(value: String) {
        self.value = value
    }

    /// A new token from the system CSPRNG.
    public static func generate() -> RefreshToken {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        return RefreshToken(value: Base64URL.encode(bytes))
    }

    /// What the database keeps: SHA-256 of the token's text.
    public var hash: [UInt8] {
        Array(SHA256.hash(data: Data(value.utf8)))
    }

    /// docs/reference.md, "Refresh tokens and sessions": the successor of this token is an HMAC of it under a server-secret subkey, so a
    /// retried refresh can answer the very same successor without it ever being stored in plain.
    public func successor(key: SymmetricKey) -> RefreshToken {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(value.utf8), using: key)
        return RefreshToken(value: Base64URL.encode(Data(mac)))
    }

    /// The key successors are derived under: the server secret's `refresh-token-successor`
    /// subkey, as bytes (derived once by each holder, not per request). The refresh grant and the
    /// two-proofs step must agree on it.
    public static func successorKey(from secret: ServerSecret) -> [UInt8] {
        secret.key(for: "refresh-token-successor").withUnsafeBytes { Array($0) }
    }

    /// Whether `text` could be one of ours (43 base64url characters), checked before any hashing
    /// or database work.
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 43 && Base64URL.decode(text)?.count == 32
    }
}

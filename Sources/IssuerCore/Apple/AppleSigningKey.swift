import Crypto
import Foundation

/// The Sign in with Apple private key (`ISSUER_APPLE_PRIVATE_KEY_FILE`, the `.p8` Apple issues:
/// a PKCS#8 PEM P-256 key) that signs the ES256 client secret (docs/reference.md, "Apple token custody"). Read once at start.
///
/// Kept as raw bytes, rebuilt into a swift-crypto key to sign: its key types are not `Sendable`
/// on every platform. Its description never shows the key.
public struct AppleSigningKey: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    private let raw: [UInt8]

    /// Reads and parses the `.p8`; nil when the file cannot be read or is not a P-256 private key.
    public init?(contentsOf file: URL) {
        guard let data = try? Data(contentsOf: file), let pem = String(data: data, encoding: .utf8),
              let key = try? P256.Signing.PrivateKey(pemRepresentation: pem)
        else { return nil }
        raw = Array(key.rawRepresentation)
    }

    /// A key in memory (tests, `issuer dev`).
    public init(_ key: P256.Signing.PrivateKey) {
        raw = Array(key.rawRepresentation)
    }

    /// The swift-crypto key, for signing.
    var privateKey: P256.Signing.PrivateKey {
        // The bytes came from a valid key, so this cannot fail.
        try! P256.Signing.PrivateKey(rawRepresentation: raw)
    }

    /// Never the key itself.
    public var description: String { "<Apple private key>" }
    /// `dump` and a containing value's reflection see no key material either.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

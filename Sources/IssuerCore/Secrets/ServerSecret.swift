import Crypto
import Foundation

/// The server secret (docs/reference.md, "Configuration"), from which purpose-bound keys are derived with HKDF
/// (RFC 5869), one label per purpose, so that a key leaked from one use reveals nothing of
/// another.
public struct ServerSecret: Sendable, CustomStringConvertible, CustomReflectable {
    // Bytes, not a `SymmetricKey`: swift-crypto's key type is not `Sendable` on Linux.
    private let material: [UInt8]

    /// Never printed, however a containing value is (docs/reference.md, "Logs").
    public var description: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// A secret from raw bytes (at least 32).
    public init(bytes: [UInt8]) {
        precondition(bytes.count >= 32, "a server secret has at least 256 bits")
        self.material = bytes
    }

    /// A 256-bit key for one purpose, e.g. `"refresh-token-successor"`.
    public func key(for label: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: material),
            salt: Data("issuer server secret v1".utf8),
            info: Data(label.utf8),
            outputByteCount: 32)
    }

    /// The configured secret, or the one kept in the database (`ServerSecretStore`), created there
    /// by whichever process asks first. A configured secret is used as it is and never stored;
    /// otherwise the store's, offering a fresh random one in case none is kept yet.
    public static func load(configured: Secret<[UInt8]>?, store: any ServerSecretStoring) async throws -> ServerSecret {
        if let configured { return ServerSecret(bytes: configured.revealed) }
        let candidate = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        return ServerSecret(bytes: try await store.secret(offering: candidate))
    }
}

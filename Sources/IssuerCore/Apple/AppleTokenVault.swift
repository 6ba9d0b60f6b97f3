import Crypto
import Foundation

/// Seals what Apple hands the issuer (refresh tokens, pending authorization codes, answers held
/// unverified) before it touches the database (docs/reference.md, "Apple token custody",
/// docs/design.md, "Apple and remote parties"): AES-256-GCM under an HKDF subkey of the
/// server secret, one label per kind, with the user id as associated data, so a database dump
/// reveals nothing and a row moved to another user does not open.
public struct AppleTokenVault: Sendable {
    /// What is sealed; each has its own subkey.
    public enum Kind: String, Sendable {
        /// Apple's refresh token, held until the account is deleted (docs/reference.md, "Apple token custody").
        case refreshToken = "apple-refresh-token"
        /// Apple's one-time code, held while its redemption is retried (5 minutes at most).
        case authorizationCode = "apple-authorization-code"
        /// Apple's answer to a redeemed code (its refresh token and `id_token`), held while Apple's
        /// keys cannot be fetched to verify it (docs/reference.md, "Apple token custody").
        case tokenAnswer = "apple-token-answer"
    }

    private let secret: ServerSecret

    /// Subkeys come from `secret` (docs/reference.md, "Configuration" `ISSUER_SECRET`).
    public init(secret: ServerSecret) {
        self.secret = secret
    }

    /// nonce || ciphertext || tag.
    public func seal(_ value: String, kind: Kind, userID: UUID) throws -> [UInt8] {
        let box = try AES.GCM.seal(Data(value.utf8), using: secret.key(for: kind.rawValue), authenticating: Self.associatedData(userID))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return Array(combined)
    }

    /// The value, or a thrown error when the bytes were altered, moved to another user or sealed
    /// under another secret.
    public func open(_ sealed: [UInt8], kind: Kind, userID: UUID) throws -> String {
        let box = try AES.GCM.SealedBox(combined: Data(sealed))
        let plain = try AES.GCM.open(box, using: secret.key(for: kind.rawValue), authenticating: Self.associatedData(userID))
        return String(decoding: plain, as: UTF8.self)
    }

    private static func associatedData(_ userID: UUID) -> Data {
        Data(userID.lowercaseText.utf8)
    }
}

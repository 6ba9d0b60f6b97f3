/// A one-time authorization code (RFC 6749 §4.1.2, docs/reference.md, "Hosted sign-in"): 256 random bits, opaque, stored
/// only as its SHA-256, like a refresh token; the plain value exists only in the redirect.
public struct AuthorizationCode: Sendable, Equatable {
    /// docs/reference.md, "Hosted sign-in": a code is good for 60 seconds.
    public static let lifetime: Duration = .seconds(60)

    /// The code as the client receives it.
    public let value: String

    /// A code as presented by a client.
    public init(value: String) {
        self.value = value
    }

    /// A fresh random code.
    public static func generate() -> AuthorizationCode {
        AuthorizationCode(value: RefreshToken.generate().value)
    }

    /// What the database stores (SHA-256).
    public var hash: [UInt8] { RefreshToken(value: value).hash }

    /// Whether `text` could be a code of ours at all; anything else is refused unread.
    public static func isWellFormed(_ text: String) -> Bool {
        RefreshToken.isWellFormed(text)
    }
}

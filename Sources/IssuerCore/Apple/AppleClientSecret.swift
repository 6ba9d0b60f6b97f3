import Crypto
import Foundation
import JOSE
import Synchronization

/// The client secret Apple's token and revoke endpoints require (docs/reference.md, "Apple token custody"; Apple, "Creating a
/// client secret"): an ES256 JWT with header `kid` = the key id, and claims `iss` = the team id,
/// `iat`, `exp` (at most six months later), `aud` = `https://appleid.apple.com` and `sub` = the
/// `client_id` it is sent with (the bundle ID for native codes, the Services ID for web codes).
///
/// One secret per `client_id` is cached and reused until a day before it expires, so Apple sees
/// few distinct secrets and the key signs rarely.
public final class AppleClientSecret: Sendable {
    /// The `aud` Apple requires.
    public static let audience = "https://appleid.apple.com"
    /// How long a secret is valid; well under Apple's six-month limit, so a rotated key stops
    /// being used within a month.
    public static let lifetime: Duration = .seconds(30 * 24 * 3600)
    /// A cached secret is replaced when less than this remains.
    public static let renewalMargin: Duration = .seconds(24 * 3600)

    private let teamID: String
    private let keyID: String
    private let key: AppleSigningKey
    private let clock: any WallClock
    private let cache = Mutex<[String: (secret: String, expiresAt: Date)]>([:])

    /// - Parameter credentials: `ISSUER_APPLE_TEAM_ID`, `_KEY_ID` and the `.p8` key, read at start.
    public init(teamID: String, keyID: String, key: AppleSigningKey, clock: any WallClock) {
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
        self.clock = clock
    }

    /// The secret to send with `clientID`: the cached one, or a fresh one when it is near its end.
    public func secret(clientID: String) throws -> String {
        let now = clock.now
        if let cached = cache.withLock({ $0[clientID] }), cached.expiresAt.timeIntervalSince(now) > Self.renewalMargin.timeInterval {
            return cached.secret
        }
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Self.lifetime.timeInterval).rounded(.down))
        let secret = try sign(clientID: clientID, issuedAt: now, expiresAt: expiresAt)
        cache.withLock { $0[clientID] = (secret, expiresAt) }
        return secret
    }

    private func sign(clientID: String, issuedAt: Date, expiresAt: Date) throws -> String {
        let header: [String: Any] = ["alg": "ES256", "kid": keyID]
        let claims: [String: Any] = [
            "iss": teamID, "iat": Int(issuedAt.timeIntervalSince1970), "exp": Int(expiresAt.timeIntervalSince1970),
            "aud": Self.audience, "sub": clientID,
        ]
        let input = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
            + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes]))
        // RFC 7518 §3.4: ES256 signs SHA-256 of the input; the signature is R || S, 32 bytes each.
        let signature = try key.privateKey.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

import Crypto
import Foundation
import JOSE

/// Dev stand-ins for classic Facebook Login's user access tokens. Facebook's are opaque and only
/// Facebook can say what they mean (`debug_token`); the stand-in has no memory, so its tokens
/// carry their user and expiry under a MAC keyed with the dev app secret:
/// `EAADEV.<base64url(user id)>.<expiry, Unix seconds>.<hex HMAC-SHA256(app secret, "<b64 id>.<expiry>")>`.
/// Anyone who knows the dev secret can mint one, which is fine for a stand-in that only ever
/// serves loopback and that no real server trusts.
extension DevSigner {
    /// The prefix of every dev access token (Facebook's begin with `EAA`).
    public static let facebookAccessTokenPrefix = "EAADEV"

    /// What a dev access token says.
    public struct FacebookAccessToken: Sendable, Equatable {
        /// The app-scoped user id.
        public var subject: String
        /// When it stops being valid.
        public var expiresAt: Date

        public init(subject: String, expiresAt: Date) {
            self.subject = subject
            self.expiresAt = expiresAt
        }

        /// Whether it is still valid at `now` (its MAC already checked).
        public func isValid(at now: Date) -> Bool { now < expiresAt }
    }

    /// A dev access token for `subject`, valid until `expiresAt` (whole seconds).
    public static func facebookAccessToken(subject: String, expiresAt: Date) -> String {
        let body = Base64URL.encode(Array(subject.utf8)) + "." + String(Int(expiresAt.timeIntervalSince1970.rounded(.down)))
        return facebookAccessTokenPrefix + "." + body + "." + hex(facebookMAC(body))
    }

    /// The user and expiry of a dev access token whose MAC is right (compared in constant time),
    /// or nil for anything else: a token of real Facebook, a forged or mangled one. Expiry is the
    /// caller's to judge (``FacebookAccessToken/isValid(at:)``): `debug_token` reports an
    /// expired token rather than refusing it.
    /// The latest expiry a dev token may name (the year 5138): every later one is refused, so no
    /// expiry, however minted, overflows when it is written back as whole seconds.
    static let latestExpiry = 100_000_000_000

    public static func facebookAccessTokenContents(_ token: String) -> FacebookAccessToken? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == facebookAccessTokenPrefix,
              let subjectBytes = Base64URL.decode(parts[1]), let subject = String(data: subjectBytes, encoding: .utf8), !subject.isEmpty,
              parts[2].allSatisfy(\.isASCII), let expiry = Int(parts[2]), (0...Self.latestExpiry).contains(expiry),
              let mac = bytes(fromHex: parts[3]), mac.count == SHA256.byteCount
        else { return nil }
        let key = SymmetricKey(data: Data(facebookAppSecret.utf8))
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data("\(parts[1]).\(parts[2])".utf8), using: key) else {
            return nil
        }
        return FacebookAccessToken(subject: subject, expiresAt: Date(timeIntervalSince1970: TimeInterval(expiry)))
    }

    /// Graph's `appsecret_proof` for `accessToken`: hex HMAC-SHA256 of the token keyed with the
    /// app secret, which Facebook requires with every call when the app says so.
    public static func facebookAppSecretProof(for accessToken: String, secret: String = facebookAppSecret) -> String {
        hex(Array(HMAC<SHA256>.authenticationCode(for: Data(accessToken.utf8), using: SymmetricKey(data: Data(secret.utf8)))))
    }

    private static func facebookMAC(_ text: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: Data(facebookAppSecret.utf8))))
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Lowercase or uppercase hex to bytes; nil for an odd length or another character.
    static func bytes(fromHex text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            result.append(high << 4 | low)
        }
        return result
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

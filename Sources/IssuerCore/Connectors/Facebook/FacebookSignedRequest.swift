import Crypto
import Foundation
import JOSE

/// Facebook's `signed_request` (developers.facebook.com, "Parsing the Signed Request";
/// docs/reference.md, "Facebook's callbacks"): `base64url(signature).base64url(payload)`, padding
/// optional, where the signature is HMAC-SHA256 of the encoded payload keyed with the app secret
/// and the payload is JSON naming the algorithm, when it was issued and the app-scoped user id.
/// Verified before anything of it is read: the MAC in constant time, then the algorithm, then
/// `issued_at` (at most 60 s ahead of us, at most 7 days old).
public struct FacebookSignedRequest: Sendable, Equatable {
    /// Why a `signed_request` was refused; the words stay in the log, the caller answers
    /// `invalid_request`.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// The app-scoped user id it concerns.
    public let userID: String
    /// When Facebook issued it.
    public let issuedAt: Date
    /// Its MAC, decoded: the same request however its base64url was padded, so a delivery is
    /// recognised by it.
    public let signature: [UInt8]

    /// A request is a short form field; anything near the 64 KiB body is not Facebook's.
    static let maximumLength = 16 * 1024
    static let maximumAge: TimeInterval = 7 * 24 * 3600
    static let maximumSkew: TimeInterval = 60

    public init(_ text: String, appSecret: Secret<String>, now: Date) throws(Refusal) {
        guard text.utf8.count <= Self.maximumLength else { throw Refusal(description: "signed_request too long") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let signature = Self.decoded(parts[0]), Self.decoded(parts[1]) != nil else {
            throw Refusal(description: "signed_request is not two base64url parts")
        }
        let expected = HMAC<SHA256>.authenticationCode(for: Data(parts[1].utf8), using: SymmetricKey(data: Data(appSecret.revealed.utf8)))
        guard ConstantTime.equals(Array(signature), Array(expected)) else { throw Refusal(description: "signature mismatch") }
        guard let payload = Self.decoded(parts[1]), let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
            throw Refusal(description: "payload is not a JSON object")
        }
        guard (object["algorithm"] as? String)?.uppercased() == "HMAC-SHA256" else { throw Refusal(description: "algorithm is not HMAC-SHA256") }
        // The Login SDK hands a browser signed requests of the same shape (with the login's `code`
        // or `oauth_token`); a server callback carries neither, so one that does is not Facebook's
        // callback and could have been taken from a web page.
        guard object["code"] == nil, object["oauth_token"] == nil else {
            throw Refusal(description: "a login's signed_request, not a callback's")
        }
        guard let issuedAt = SecurityEventClaims.number(object["issued_at"], inText: false) else {
            throw Refusal(description: "no issued_at")
        }
        let age = now.timeIntervalSince1970 - issuedAt
        guard age <= Self.maximumAge else { throw Refusal(description: "issued_at more than 7 days ago") }
        guard age >= -Self.maximumSkew else { throw Refusal(description: "issued_at in the future") }
        let userID = (object["user_id"] as? String) ?? (object["user_id"] as? Int).map(String.init)
        guard let userID, !userID.isEmpty, userID.utf8.count <= 255, !userID.containsControlCharacters else {
            throw Refusal(description: "no user_id")
        }
        self.userID = userID
        self.issuedAt = Date(timeIntervalSince1970: issuedAt)
        self.signature = Array(signature)
    }

    /// base64url with or without `=` padding, as Facebook's SDKs write it either way.
    private static func decoded(_ part: Substring) -> Data? {
        var unpadded = part
        while unpadded.last == "=" { unpadded.removeLast() }
        return unpadded.isEmpty ? nil : Base64URL.decode(unpadded)
    }
}

import Foundation
import JOSE

/// The dev key plays Facebook too: OpenID tokens shaped as Limited Login's (the iOS SDK's
/// `AuthenticationToken`), for a `facebook` provider whose `jwks_uri` points at
/// `issuer dev facebook`. Like the Apple and Google stand-ins, nothing in
/// `issuer serve` knows about it; a server trusts these tokens only through a providers file
/// naming the stand-in's URLs and the dev app below.
extension DevSigner {
    /// Limited Login's `iss`.
    public static let facebookIssuer = "https://www.facebook.com"
    /// The dev Facebook App ID: the `aud` of the stand-in's tokens and the `app_id` of the
    /// providers file it prints. Real App IDs are numbers too; this one belongs to no app.
    public static let facebookAppID = "100000000000001"
    /// The dev app secret: the key of `appsecret_proof`, of the app access token
    /// (`<app id>|<app secret>`), of Facebook's `signed_request` callbacks and of the dev access
    /// tokens' MAC. Printed in the stand-in's banner: it guards nothing but loopback play.
    public static let facebookAppSecret = "dev-facebook-app-secret"
    /// The dev users the stand-in's dialog offers, the first also `issuer dev token`'s default.
    public static let facebookUsers = ["dev-facebook-user-1", "dev-facebook-user-2"]

    /// What the stand-in knows of a dev Facebook user: the same for every user id, apart from the
    /// address, which is `<id>@dev.issuer.local` so that each user's is their own.
    public struct FacebookProfile: Sendable, Equatable {
        public var id: String
        public var name = "Dev User"
        public var givenName = "Dev"
        public var familyName = "User"
        public var email: String

        public init(id: String) {
            self.id = id
            email = "\(id)@dev.issuer.local"
        }
    }

    /// A Limited Login OpenID token as the Facebook SDK hands an iOS app: `aud` the App ID, a
    /// `jti`, and `nonce` the lowercase hex SHA-256 of the raw `nonce` the app passed to the SDK
    /// (always present in Facebook's tokens, so it is required here). `email`, `name` and its
    /// parts are left out when nil, as Facebook leaves out what the user did not grant.
    public func facebookIDToken(
        subject: String, email: String?, name: String? = "Dev User", givenName: String? = "Dev", familyName: String? = "User",
        nonce: String, audience: String = Self.facebookAppID, issuedAt: Date = Date(), lifetime: TimeInterval = 3600
    ) throws -> String {
        let iat = Int(issuedAt.timeIntervalSince1970.rounded(.down))
        var claims: [String: Any] = [
            "iss": Self.facebookIssuer, "aud": audience, "sub": subject, "iat": iat, "exp": iat + Int(lifetime),
            "jti": UUID().uuidString.lowercased(), "nonce": Self.hashedNonce(nonce),
            "picture": "https://dev.issuer.local/facebook/\(subject)/picture.jpg",
        ]
        if let email { claims["email"] = email }
        if let name { claims["name"] = name }
        if let givenName { claims["given_name"] = givenName }
        if let familyName { claims["family_name"] = familyName }
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        return try JWS.sign(payload: payload, header: JWSHeader(alg: .rs256, typ: "JWT", kid: kid), key: key)
    }

    /// A raw nonce for a Limited Login token when the caller has none: 32 random bytes in
    /// base64url, as an app would make one.
    public static func randomNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}

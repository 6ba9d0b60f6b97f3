import Foundation
import JOSE

/// The dev key plays Google too (docs/reference.md, "Google and other OpenID providers"): ID
/// tokens shaped as Android's Credential Manager returns them, for a `google` provider whose
/// `jwks_uri` points at `issuer dev google`. Like the Apple stand-in, nothing in `issuer serve`
/// knows about it; a server trusts these tokens only through a providers file naming the
/// stand-in's URLs and the dev client ids below.
extension DevSigner {
    /// Google's `iss`, as Credential Manager's tokens carry it.
    public static let googleIssuer = "https://accounts.google.com"
    /// The dev "web" client id: the `aud` an app asks Credential Manager for (`setServerClientId`).
    public static let googleWebClientID = "dev-web.issuer.local"
    /// The dev "Android" client id: the `azp` of Credential Manager's tokens.
    public static let googleAndroidClientID = "dev-android.issuer.local"

    /// An ID token as Credential Manager hands an Android app after "Sign in with Google":
    /// `aud` the web client id, `azp` the Android one, `email_verified` a boolean, and the nonce
    /// the app passed (its SHA-256 hex of the raw `nonce`, or `nonceClaim` verbatim).
    public func googleIDToken(
        subject: String, email: String?, nonce: String? = nil, nonceClaim: String? = nil,
        audience: String = Self.googleWebClientID, authorizedParty: String? = Self.googleAndroidClientID,
        issuedAt: Date = Date(), lifetime: TimeInterval = 3600
    ) throws -> String {
        let iat = Int(issuedAt.timeIntervalSince1970.rounded(.down))
        var claims: [String: Any] = ["iss": Self.googleIssuer, "aud": audience, "sub": subject, "iat": iat, "exp": iat + Int(lifetime)]
        if let authorizedParty { claims["azp"] = authorizedParty }
        if let email {
            claims["email"] = email
            claims["email_verified"] = true
        }
        if let nonceClaim {
            claims["nonce"] = nonceClaim
        } else if let nonce {
            claims["nonce"] = Self.hashedNonce(nonce)
        }
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        return try JWS.sign(payload: payload, header: JWSHeader(alg: .rs256, typ: "JWT", kid: kid), key: key)
    }
}

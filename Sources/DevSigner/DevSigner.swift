import Foundation
import JOSE

/// A local stand-in for Apple's identity-token signer (and, with the same key, Google's:
/// DevSigner+Google.swift), for development and benchmarks only: it mints tokens shaped exactly like Apple's (`iss` = `https://appleid.apple.com`, `aud`, `sub`,
/// `iat`, `exp`, `email`, `email_verified`, the hashed `nonce`) with a key kept on local disk.
///
/// Nothing in `issuer serve` knows about it: a server trusts these tokens only when its operator
/// points `ISSUER_APPLE_JWKS_URL` at `issuer dev apple` and lists ``audience`` in
/// `ISSUER_APPLE_CLIENT_IDS`. The key lives under `.data/` (git-ignored) so it never ships.
public struct DevSigner: Sendable {
    /// The `iss` Apple puts in every identity token, which the issuer insists on (docs/reference.md, "Native sign-in").
    public static let issuer = "https://appleid.apple.com"
    /// The audience of dev tokens: a name no real App Store bundle can have, so listing it in
    /// `ISSUER_APPLE_CLIENT_IDS` is an unmistakable, deliberate act.
    public static let audience = "dev.issuer.local"
    /// Where the dev key lives, relative to the working directory.
    public static let defaultDirectory = ".data/dev-apple"
    /// The path `issuer dev apple` serves the key set on, as Apple does.
    public static let jwksPath = "/auth/keys"

    /// The directory holding the key file.
    public let directory: URL
    /// The signing key; its RFC 7638 thumbprint is the `kid`.
    public let key: RSAPrivateKey

    /// The `kid` in the header of every dev token and in the served key set.
    public var kid: String { "dev-" + key.publicKey.thumbprint }

    /// Loads the key in `directory`, creating the directory (0700) and the key (0600) on first use.
    public init(directory: URL) throws {
        self.directory = directory
        self.key = try Self.loadOrCreateKey(in: directory)
    }

    /// `{"keys": [...]}` as Apple publishes it at `https://appleid.apple.com/auth/keys`.
    public var jwksJSON: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding a struct of strings cannot fail.
        return try! encoder.encode(JWKS(keys: [key.publicKey.jwk(kid: kid)]))
    }

    /// An identity token as Apple issues it to an iOS app after Sign in with Apple.
    ///
    /// `nonce` is the raw value the app generated; like Apple, the token carries its lowercase hex
    /// SHA-256, and the app sends the raw value to the exchange. `nonceClaim` instead puts a value
    /// in the `nonce` claim as it is: the hosted flow (docs/reference.md, "Hosted sign-in") sends Apple the hashed nonce, and
    /// Apple echoes what it was sent, so a stand-in for Apple's web sign-in copies it verbatim.
    public func identityToken(
        subject: String, email: String?, nonce: String? = nil, nonceClaim: String? = nil,
        audience: String = Self.audience, issuedAt: Date = Date(), lifetime: TimeInterval = 600
    ) throws -> String {
        let iat = Int(issuedAt.timeIntervalSince1970.rounded(.down))
        var claims: [String: Any] = [
            "iss": Self.issuer, "aud": audience, "sub": subject,
            "iat": iat, "exp": iat + Int(lifetime), "auth_time": iat, "nonce_supported": true,
        ]
        if let email {
            claims["email"] = email
            // Apple sends these as strings; the issuer must understand that form (docs/reference.md, "Native sign-in").
            claims["email_verified"] = "true"
            claims["is_private_email"] = "false"
        }
        if let nonceClaim {
            claims["nonce"] = nonceClaim
        } else if let nonce {
            claims["nonce"] = Self.hashedNonce(nonce)
        }
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        return try JWS.sign(payload: payload, header: JWSHeader(alg: .rs256, typ: nil, kid: kid), key: key)
    }

    /// Apple's recommended nonce form: lowercase hex SHA-256 of the raw nonce.
    public static func hashedNonce(_ raw: String) -> String {
        JOSEDigest.sha256(Data(raw.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

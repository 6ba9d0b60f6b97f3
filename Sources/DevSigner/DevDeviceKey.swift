import Crypto
import Foundation
import JOSE

/// A stand-in for the key an app keeps in the Secure Enclave or StrongBox, for trying DPoP
/// (RFC 9449; docs/reference.md, "DPoP") without a device: a P-256 key kept beside the dev
/// signer's key, and the proofs an app builds with it. Development only, like ``DevSigner``.
public struct DevDeviceKey: Sendable {
    /// The PEM file of the device key, in the dev signer's directory.
    public static let keyFileName = "dpop-device-key.pem"

    // The PEM, not the key: swift-crypto's key types are not `Sendable` on every platform.
    private let pem: String

    /// Loads the key in `directory` (the dev signer's), creating it (0600) on first use.
    public init(directory: URL) throws {
        pem = try DevSigner.loadOrCreate(
            Self.keyFileName, in: directory, make: { P256.Signing.PrivateKey().pemRepresentation },
            parse: { pem in (try? P256.Signing.PrivateKey(pemRepresentation: pem)).map { _ in pem } })
    }

    private var key: P256.Signing.PrivateKey {
        // Parsed once at init: the PEM is known good.
        try! P256.Signing.PrivateKey(pemRepresentation: pem)
    }

    /// The public JWK members in RFC 7638's canonical order.
    var jwkJSON: String {
        let point = key.publicKey.rawRepresentation
        return #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(point.prefix(32)) + #"","y":""#
            + Base64URL.encode(point.suffix(32)) + #""}"#
    }

    /// The RFC 7638 thumbprint: the `cnf.jkt` of the tokens of a session this key binds.
    public var thumbprint: String {
        Base64URL.encode(Array(SHA256.hash(data: Data(jwkJSON.utf8))))
    }

    /// A proof (RFC 9449 §4.2) for `method` `url`, issued `now`: with `accessToken`, its `ath`
    /// (for `/userinfo` and `/account`); with `nonce`, the server's (`DPoP-Nonce`).
    public func proof(method: String, url: String, accessToken: String? = nil, nonce: String? = nil, now: Date = Date()) throws -> String {
        var claims: [String: Any] = [
            "htm": method, "htu": url, "iat": Int(now.timeIntervalSince1970), "jti": UUID().uuidString,
        ]
        if let accessToken { claims["ath"] = Base64URL.encode(Array(SHA256.hash(data: Data(accessToken.utf8)))) }
        if let nonce { claims["nonce"] = nonce }
        let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":"# + jwkJSON + "}"
        let body = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(body))
        return input + "." + Base64URL.encode(Array(try key.signature(for: Data(input.utf8)).rawRepresentation))
    }
}

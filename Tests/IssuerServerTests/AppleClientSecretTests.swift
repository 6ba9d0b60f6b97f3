import Foundation
import IssuerCore
import IssuerStorage
import JOSE
import JWTKit
import Testing
import TestSupport

@Suite("Apple client secret (reference: Account deletion) and the .p8 setting (reference: Configuration)")
struct AppleClientSecretTests {
    @Test("the secret verifies with the key's public half (jwt-kit) and carries exactly Apple's claims; cached, then renewed")
    func secretClaims() async throws {
        try await FakeAppleServer.withKeyFile { apple in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let key = try #require(AppleSigningKey(contentsOf: apple.keyFile))
            let signer = AppleClientSecret(teamID: FakeAppleServer.teamID, keyID: FakeAppleServer.keyID, key: key, clock: clock)
            let secret = try signer.secret(clientID: "com.example.app")

            let parts = secret.split(separator: ".")
            #expect(parts.count == 3)
            let header = try JSONSerialization.jsonObject(with: Data(base64URL: parts[0])) as! [String: Any]
            #expect(header as NSDictionary == ["alg": "ES256", "kid": FakeAppleServer.keyID] as NSDictionary)
            let claims = try JSONSerialization.jsonObject(with: Data(base64URL: parts[1])) as! [String: Any]
            #expect(claims as NSDictionary == [
                "iss": FakeAppleServer.teamID, "sub": "com.example.app", "aud": "https://appleid.apple.com",
                "iat": 1_800_000_000, "exp": 1_800_000_000 + AppleClientSecret.lifetime.wholeSeconds,
            ] as NSDictionary)
            #expect(AppleClientSecret.lifetime <= .seconds(15_777_000), "Apple: at most six months")

            // jwt-kit, independently: ES256 under the .p8's public key.
            let keys = JWTKeyCollection()
            let publicKey = try ES256PrivateKey(pem: String(contentsOf: apple.keyFile, encoding: .utf8)).publicKey
            await keys.add(ecdsa: publicKey, kid: JWKIdentifier(string: FakeAppleServer.keyID))
            let payload = try await keys.verify(secret, as: Unchecked.self)
            #expect(payload.sub == "com.example.app")
            let otherKeys = JWTKeyCollection()
            await otherKeys.add(ecdsa: ES256PrivateKey().publicKey, kid: JWKIdentifier(string: FakeAppleServer.keyID))
            await #expect(throws: (any Error).self) { try await otherKeys.verify(secret, as: Unchecked.self) }

            #expect(try signer.secret(clientID: "com.example.app") == secret, "cached")
            #expect(try signer.secret(clientID: "com.example.web") != secret, "sub is the client_id it is sent with")
            clock.advance(by: AppleClientSecret.lifetime - AppleClientSecret.renewalMargin + .seconds(1))
            let renewed = try signer.secret(clientID: "com.example.app")
            #expect(renewed != secret)
            let renewedClaims = try JSONSerialization.jsonObject(with: Data(base64URL: renewed.split(separator: ".")[1])) as! [String: Any]
            #expect((renewedClaims["exp"] as! Int) > Int(clock.now.timeIntervalSince1970) + AppleClientSecret.renewalMargin.wholeSeconds)
        }
    }

    /// Claims read without checks: the test compares them itself.
    struct Unchecked: JWTPayload {
        var sub: String
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The ways a `.p8` can be unusable.
    enum BadKeyFile: String, CaseIterable, Sendable {
        case missing, notP256, notAKey
    }

    @Test("an unreadable .p8, or one that is not a P-256 key, is one configuration error naming the setting",
          arguments: BadKeyFile.allCases)
    func badKeyFile(_ flaw: BadKeyFile) throws {
        try FakeAppleServer.withKeyFile { apple in
            let path: String
            switch flaw {
            case .missing:
                path = "/nonexistent/AuthKey.p8"
            case .notP256:
                let notP256 = apple.keyFile.deletingLastPathComponent().appendingPathComponent("rsa.p8")
                try RSAPrivateKey.generate().pemPKCS8().write(to: notP256, atomically: true, encoding: .utf8)
                path = notP256.path
            case .notAKey:
                let garbage = apple.keyFile.deletingLastPathComponent().appendingPathComponent("garbage.p8")
                try "not a key".write(to: garbage, atomically: true, encoding: .utf8)
                path = garbage.path
            }
            var environment = apple.environment(port: 1)
            environment["ISSUER_APPLE_PRIVATE_KEY_FILE"] = path
            #expect {
                _ = try Configuration(environment: environment)
            } throws: { error in
                (error as? ConfigurationError)?.setting == "ISSUER_APPLE_PRIVATE_KEY_FILE"
            }
        }
    }

    @Test("a readable P-256 .p8 is Apple's signing key, and never shows in a description")
    func goodKeyFile() throws {
        try FakeAppleServer.withKeyFile { apple in
            let configuration = try Configuration(environment: apple.environment(port: 1))
            #expect(configuration.appleCredentials?.signingKey == AppleSigningKey(contentsOf: apple.keyFile))
            #expect(!"\(configuration)".contains("BEGIN"), "the key never shows in a description")
        }
    }
}

extension Data {
    /// RFC 4648 §5 text, for reading a JWT's segments in tests.
    init(base64URL text: Substring) {
        self = Base64URL.decode(text)!
    }
}

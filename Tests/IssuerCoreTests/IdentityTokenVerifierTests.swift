import Crypto
import Foundation
import IssuerCore
import JOSE
import Testing
import TestSupport

@Suite("Identity token verification (reference: Native sign-in)")
struct IdentityTokenVerifierTests {
    let apple: FakeAppleKeys
    let fetcher: StubJWKSFetcher
    let clock = ManualClock(Date())
    let verifier: IdentityTokenVerifier
    let audiences: Set<String> = ["com.example.app"]

    init() throws {
        apple = try FakeAppleKeys()
        fetcher = StubJWKSFetcher(serving: apple)
        let url = URL(string: "https://appleid.apple.com/auth/keys")!
        verifier = IdentityTokenVerifier(
            provider: .apple, keys: RemoteJWKSCache(url: url, fetcher: fetcher, clock: clock), clock: clock)
    }

    func verify(
        _ token: String, nonce: String? = nil, requireNonce: Bool = false, acceptUnhashed: Bool = false
    ) async throws(IdentityTokenError) -> ExternalIdentity {
        try await verifier.verify(
            token, audiences: audiences, nonce: nonce, noncePolicy: NoncePolicy(required: requireNonce, acceptUnhashed: acceptUnhashed))
    }

    @Test("a good token yields the identity; booleans as strings or booleans")
    func accepts() async throws {
        let token = try apple.identityToken(subject: "000111.apple.sub", issuedAt: clock.now, overrides: ["is_private_email": false])
        let identity = try await verify(token)
        #expect(identity == ExternalIdentity(
            provider: "apple", subject: "000111.apple.sub", audience: "com.example.app",
            email: "user@privaterelay.appleid.com", emailVerified: true, isPrivateEmail: false))
        let arrayAudience = try apple.identityToken(issuedAt: clock.now, overrides: ["aud": ["com.example.app"]])
        #expect(try await verify(arrayAudience).audience == "com.example.app")
    }

    @Test("OIDC Core 3.1.3.7: every audience must be trusted, and an azp must be an accepted audience or a configured authorized party")
    func audiencesAndAuthorizedParties() async throws {
        let now = clock.now
        func verify(_ claims: [String: any Sendable], authorizedParties: Set<String>) async throws -> ExternalIdentity {
            let provider = IdentityProvider(name: "apple", issuer: FakeAppleKeys.issuer, authorizedParties: authorizedParties)
            let verifier = IdentityTokenVerifier(
                provider: provider, keys: RemoteJWKSCache(url: URL(string: "https://keys.example.com/jwks")!, fetcher: fetcher, clock: clock),
                clock: clock)
            return try await verifier.verify(
                try apple.identityToken(issuedAt: now, overrides: claims), audiences: ["web-client", "second-trusted"], nonce: nil,
                noncePolicy: NoncePolicy())
        }
        let untrusted: [[String: any Sendable]] = [
            ["aud": ["web-client", "someone-else"]],
            ["aud": ["someone-else", "web-client"], "azp": "web-client"],
        ]
        for claims in untrusted {
            for parties: Set<String> in [[], ["android-app"]] {
                await #expect(throws: IdentityTokenError.rejected("an untrusted aud beside ours"), "\(claims) \(parties)") {
                    try await verify(claims, authorizedParties: parties)
                }
            }
        }
        // Without authorized parties an azp must still be one of the accepted audiences.
        await #expect(throws: IdentityTokenError.rejected("wrong azp")) {
            try await verify(["aud": "web-client", "azp": "someone-else"], authorizedParties: [])
        }
        await #expect(throws: IdentityTokenError.rejected("wrong azp")) {
            try await verify(["aud": "web-client", "azp": "someone-else"], authorizedParties: ["android-app"])
        }
        #expect(try await verify(["aud": ["web-client", "second-trusted"]], authorizedParties: []).audience == "web-client")
        #expect(try await verify(["aud": "web-client", "azp": "web-client"], authorizedParties: ["android-app"]).audience == "web-client")
        #expect(try await verify(["aud": "web-client", "azp": "second-trusted"], authorizedParties: []).audience == "web-client")
        #expect(try await verify(["aud": "web-client", "azp": "android-app"], authorizedParties: ["android-app"]).audience == "web-client")
    }

    @Test("nonce: the hashed form binds; the raw form only when allowed; mismatch and missing refused")
    func nonces() async throws {
        let hashed = try apple.identityToken(nonce: "n-0S6_WzA2Mj", issuedAt: clock.now)
        _ = try await verify(hashed, nonce: "n-0S6_WzA2Mj")
        let raw = try apple.identityToken(issuedAt: clock.now, overrides: ["nonce": "n-0S6_WzA2Mj"])
        await #expect(throws: IdentityTokenError.rejected("nonce mismatch"), "raw form refused by default") {
            try await verify(raw, nonce: "n-0S6_WzA2Mj")
        }
        _ = try await verify(raw, nonce: "n-0S6_WzA2Mj", acceptUnhashed: true)
        await #expect(throws: IdentityTokenError.rejected("nonce mismatch")) { try await verify(hashed, nonce: "another") }
        let none = try apple.identityToken(issuedAt: clock.now)
        await #expect(throws: IdentityTokenError.rejected("nonce mismatch")) { try await verify(none, nonce: "n-0S6_WzA2Mj") }
        await #expect(throws: IdentityTokenError.rejected("nonce required")) { try await verify(none, requireNonce: true) }
        _ = try await verify(hashed, nonce: "n-0S6_WzA2Mj", requireNonce: true)
    }

    @Test("a stolen token cannot pass the nonce check: neither by sending its visible claim nor by omitting the nonce")
    func stolenToken() async throws {
        let token = try apple.identityToken(nonce: "app-secret-raw-nonce", issuedAt: clock.now)
        let payload = try #require(token.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode(String($0)) })
        let visibleClaim = try #require((try JSONSerialization.jsonObject(with: payload) as? [String: Any])?["nonce"] as? String)
        await #expect(throws: IdentityTokenError.rejected("nonce mismatch")) { try await verify(token, nonce: visibleClaim) }
        await #expect(throws: IdentityTokenError.rejected("the token carries a nonce; the request must send it")) {
            try await verify(token)
        }
        _ = try await verify(token, nonce: "app-secret-raw-nonce")
    }

    @Test("hostile and broken tokens are refused with the right error")
    func hostile() async throws {
        let now = clock.now
        let (kid, key) = apple.currentKey
        let claims = try JSONSerialization.data(withJSONObject: [
            "iss": FakeAppleKeys.issuer, "aud": "com.example.app", "sub": "victim",
            "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 600,
        ])
        let none = Base64URL.encode(Data(#"{"alg":"none","kid":"\#(kid)"}"#.utf8)) + "." + Base64URL.encode(claims) + "."
        let hs256 = try Self.hs256(claims: claims, kid: kid, secret: apple.jwksJSON)
        let good = try apple.identityToken(issuedAt: now)
        var tampered = good.split(separator: ".").map(String.init)
        tampered[1] = Base64URL.encode(try JSONSerialization.data(withJSONObject: [
            "iss": FakeAppleKeys.issuer, "aud": "com.example.app", "sub": "someone-else",
            "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 600,
        ]))
        let cases: [(String, String, IdentityTokenError)] = [
            ("alg none", none, .rejected("alg is not RS256")),
            ("HS256 with the public key as secret", hs256, .rejected("alg is not RS256")),
            ("unknown kid", try FakeAppleKeys.sign(payload: claims, header: ["alg": "RS256", "kid": "nope"], key: key), .rejected("unknown kid")),
            ("crit", try FakeAppleKeys.sign(payload: claims, header: ["alg": "RS256", "kid": kid, "crit": ["exp"]], key: key), .rejected("crit header")),
            ("tampered payload", tampered.joined(separator: "."), .rejected("signature does not verify")),
            ("signed by another key", try FakeAppleKeys.sign(payload: claims, header: ["alg": "RS256", "kid": kid], key: try RSAPrivateKey.generate()), .rejected("signature does not verify")),
            ("wrong iss", try apple.identityToken(issuedAt: now, overrides: ["iss": "https://evil.example.com"]), .rejected("wrong iss")),
            ("wrong aud", try apple.identityToken(audience: "com.evil.app", issuedAt: now), .rejected("wrong aud")),
            ("expired", try apple.identityToken(issuedAt: now.addingTimeInterval(-700), lifetime: 600), .rejected("expired")),
            ("iat in the future", try apple.identityToken(issuedAt: now.addingTimeInterval(120)), .rejected("iat in the future")),
            ("garbage", "not a token", .malformed("not a compact JWS")),
            ("padding", good + "==", .malformed("not a compact JWS")),
            ("oversized", good + String(repeating: "A", count: 17 * 1024), .malformed("token over 16384 bytes")),
        ]
        for (name, token, expected) in cases {
            await #expect(throws: expected, "\(name)") { try await verify(token) }
        }
    }

    @Test("leeway: 60 s either way, not more")
    func leeway() async throws {
        let now = clock.now
        _ = try await verify(try apple.identityToken(issuedAt: now.addingTimeInterval(-650), lifetime: 600))
        _ = try await verify(try apple.identityToken(issuedAt: now.addingTimeInterval(50)))
        await #expect(throws: IdentityTokenError.self) {
            try await verify(try apple.identityToken(issuedAt: now.addingTimeInterval(-661), lifetime: 600))
        }
    }

    @Test("Apple's keys unreachable with nothing cached: keysUnavailable, mapped to 503")
    func keysUnavailable() async throws {
        fetcher.setFailing(true)
        let error = await #expect(throws: IdentityTokenError.self) { try await verify(try apple.identityToken(issuedAt: clock.now)) }
        guard case .keysUnavailable = error else {
            Issue.record("expected keysUnavailable, got \(String(describing: error))")
            return
        }
        #expect(error?.oauthError.code == .temporarilyUnavailable)
        #expect(error?.oauthError.statusCode == 503)
    }

    @Test("errors map to RFC 6749 codes, and to invalid_request for RFC 8693")
    func errorMapping() {
        #expect(IdentityTokenError.malformed("x").oauthError.code == .invalidRequest)
        #expect(IdentityTokenError.rejected("x").oauthError.code == .invalidGrant)
        #expect(IdentityTokenError.rejected("x").tokenExchangeError.code == .invalidRequest)
        #expect(IdentityTokenError.rejected("x").oauthError.description.contains("x") == false, "debug text stays in the log")
    }

    @Test("a missing nonce is the one refusal a client is told about, in the native exchange and the RFC 8693 grant")
    func missingNonceSaid() async throws {
        let token = try apple.identityToken(nonce: "raw-nonce", issuedAt: clock.now)
        let error = await #expect(throws: IdentityTokenError.nonceMissing) { try await verify(token) }
        for refusal in [error?.oauthError, error?.tokenExchangeError] {
            #expect(refusal?.description.contains("send the raw nonce the app generated as `nonce`") == true, "\(String(describing: refusal))")
        }
        #expect(error?.tokenExchangeError.code == .invalidRequest)
        #expect(IdentityTokenError.nonceRequired.oauthError.description.contains("A nonce is required"))
        #expect(!IdentityTokenError.rejected("nonce mismatch").oauthError.description.contains("nonce"), "a mismatch stays unexplained")
    }

    static func hs256(claims: Data, kid: String, secret: Data) throws -> String {
        let header = Base64URL.encode(Data(#"{"alg":"HS256","kid":"\#(kid)"}"#.utf8))
        let input = header + "." + Base64URL.encode(claims)
        // The classic confusion attack: an HMAC keyed with the public key material, which a
        // verifier that let the token pick its algorithm would accept.
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret))
        return input + "." + Base64URL.encode(Data(mac))
    }
}

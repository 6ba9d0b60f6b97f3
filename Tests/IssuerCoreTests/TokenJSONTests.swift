import Foundation
import IssuerCore
import Testing

/// The claims and the token answer are written by hand (`encodedJSON()`, docs/performance.md):
/// they must stay the bytes `JSONEncoder` writes with sorted keys and unescaped slashes for the
/// same values, with every optional member present and absent. A member added to `CodingKeys`
/// and not to the writer fails here.
@Suite struct TokenJSONTests {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Values with what JSON escapes, slashes and non-ASCII, or nil.
    private static let texts: [String?] = [nil, "Zoë \"Z\" O'Neil\\", "https://issuer.example/x", "tab\there\u{1}", "👩‍💻"]

    @Test func accessTokenClaims() throws {
        for (index, text) in Self.texts.enumerated() {
            for bound in [false, true] {
                let claims = AccessTokenClaims(
                    issuer: "https://issuer.example/", subject: UUID().uuidString.lowercased(), audience: "api/\(index)",
                    clientID: "clanboards-mobile", issuedAt: 1_790_000_000 + index, expiresAt: 1_790_003_600, jwtID: "j-\(index)",
                    scope: "openid email profile", sessionID: UUID().uuidString.lowercased(), email: text,
                    emailVerified: index % 3 == 0 ? nil : index % 3 == 1, name: Self.texts[(index + 1) % Self.texts.count],
                    confirmation: bound ? .init(jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I") : nil)
                #expect(claims.encodedJSON() == Array(try Self.encoder.encode(claims)))
                #expect(try JSONDecoder().decode(AccessTokenClaims.self, from: Data(claims.encodedJSON())) == claims)
            }
        }
    }

    @Test func idTokenClaims() throws {
        for (index, text) in Self.texts.enumerated() {
            let claims = IDTokenClaims(
                issuer: "https://issuer.example/", subject: "s\(index)", audience: "clanboards-mobile", issuedAt: 1_790_000_000,
                expiresAt: 1_790_003_600, authTime: 1_789_000_000 - index, sessionID: "sid", nonce: Self.texts[(index + 2) % Self.texts.count],
                accessTokenHash: "hash", email: text, emailVerified: index % 3 == 0 ? nil : index % 3 == 1,
                name: Self.texts[(index + 1) % Self.texts.count], givenName: text, familyName: Self.texts[(index + 3) % Self.texts.count])
            #expect(claims.encodedJSON() == Array(try Self.encoder.encode(claims)))
            #expect(try JSONDecoder().decode(IDTokenClaims.self, from: Data(claims.encodedJSON())) == claims)
        }
    }

    @Test func tokenResponse() throws {
        for (index, text) in Self.texts.enumerated() {
            var response = TokenResponse(
                accessToken: "a.b.c", expiresIn: 3600 - index, refreshToken: text, idToken: Self.texts[(index + 1) % Self.texts.count],
                scope: "openid email", issuedTokenType: Self.texts[(index + 2) % Self.texts.count])
            if index % 2 == 1 { response.tokenType = "DPoP" }
            #expect(response.encodedJSON() == Array(try Self.encoder.encode(response)))
        }
    }
}

import Foundation
import JOSE
import Testing
import TestSupport

@Suite struct JWKTests {
    /// The RSA key from RFC 7638 §3.1 (originally RFC 7517 Appendix A.1).
    static let rfc7638Modulus =
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"

    @Test func rfc7638ExampleThumbprint() throws {
        let jwk = JWK(kty: "RSA", alg: "RS256", kid: "2011-04-29", n: Self.rfc7638Modulus, e: "AQAB")
        let key = try RSAPublicKey(jwk: jwk)
        #expect(key.thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test func thumbprintMatchesTheOpenSSLCLIOverCanonicalJSON() throws {
        let jwk = TestRSAKeys.a.publicKey.jwk
        let canonical = #"{"e":"\#(jwk.e!)","kty":"RSA","n":"\#(jwk.n!)"}"#
        let hex = try TestDirectories.withTemporary { directory in
            let file = directory.appendingPathComponent("jwk.json")
            try Data(canonical.utf8).write(to: file)
            return try CommandLineTool.openssl(["dgst", "-sha256", "-r", file.path]).prefix(64)
        }
        let bytes = stride(from: 0, to: 64, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        #expect(TestRSAKeys.a.publicKey.thumbprint == Base64URL.encode(bytes))
    }

    @Test func jwkRoundTripsThroughJSONWithoutPrivateMembers() throws {
        let publicKey = TestRSAKeys.a.publicKey
        let jwk = publicKey.jwk
        #expect(jwk.kid == publicKey.thumbprint)
        #expect(jwk.kty == "RSA" && jwk.use == "sig" && jwk.alg == "RS256")
        let json = try JSONEncoder().encode(JWKS(keys: [jwk]))
        let object = try #require(JSONSerialization.jsonObject(with: json) as? [String: Any])
        let member = try #require((object["keys"] as? [[String: Any]])?.first)
        #expect(Set(member.keys) == ["kty", "use", "alg", "kid", "n", "e"])
        let decoded = try JSONDecoder().decode(JWKS.self, from: json)
        #expect(decoded.keys == [jwk])
        let rebuilt = try RSAPublicKey(jwk: decoded.keys[0])
        #expect(rebuilt.modulus == publicKey.modulus && rebuilt.exponent == publicKey.exponent)
    }

    @Test func decodingIgnoresPrivateMembers() throws {
        let json = #"{"kty":"RSA","n":"AQAB","e":"AQAB","d":"c2VjcmV0","p":"cA","q":"cQ"}"#
        let jwk = try JSONDecoder().decode(JWK.self, from: Data(json.utf8))
        let reencoded = String(decoding: try JSONEncoder().encode(jwk), as: UTF8.self)
        #expect(!reencoded.contains("\"d\"") && !reencoded.contains("c2VjcmV0"))
    }

    @Test func conversionRejectsUnusableKeys() {
        let good = TestRSAKeys.a.publicKey.jwk
        var cases: [JWK] = []
        var jwk = good
        jwk.kty = "EC"
        cases.append(jwk)
        jwk = good
        jwk.n = nil
        cases.append(jwk)
        jwk = good
        jwk.n = good.n! + "="
        cases.append(jwk)
        jwk = good
        jwk.e = "AA"
        cases.append(jwk)
        jwk = good
        jwk.use = "enc"
        cases.append(jwk)
        jwk = good
        jwk.alg = "PS256"
        cases.append(jwk)
        for jwk in cases {
            #expect(throws: JOSEError.invalidKey) { try RSAPublicKey(jwk: jwk) }
        }
        #expect(throws: Never.self) { try RSAPublicKey(jwk: good) }
    }

    @Test func lenientSetKeepsOnlyUsableRSAKeys() throws {
        let first = TestRSAKeys.a.publicKey.jwk(kid: "first")
        let second = TestRSAKeys.b.publicKey.jwk(kid: "second")
        let json = """
            {"keys":[
              {"kty":"oct","kid":"hmac","k":"c2VjcmV0"},
              {"kty":"EC","kid":"ec","crv":"P-256","x":"AA","y":"AA"},
              {"kty":"RSA","kid":"broken","n":"not base64!","e":"AQAB"},
              {"kty":"RSA","n":"\(first.n!)","e":"AQAB"},
              "not an object",
              {"kty":"RSA","kid":"first","n":"\(first.n!)","e":"\(first.e!)"},
              {"kty":"RSA","kid":"second","use":"sig","n":"\(second.n!)","e":"\(second.e!)","x5c":["AA"]},
              {"kty":"RSA","kid":"encryption","use":"enc","n":"\(second.n!)","e":"\(second.e!)"}
            ]}
            """
        let keys = try JWKS.rsaVerificationKeys(fromJSON: Data(json.utf8))
        #expect(Set(keys.keys) == ["first", "second"])
        #expect(keys["first"]?.modulus == TestRSAKeys.a.publicKey.modulus)
        #expect(keys["second"]?.modulus == TestRSAKeys.b.publicKey.modulus)
        #expect(throws: (JOSEError.malformed)) { try JWKS.rsaVerificationKeys(fromJSON: Data(#"{"keys":5}"#.utf8)) }
        #expect(throws: (JOSEError.malformed)) { try JWKS.rsaVerificationKeys(fromJSON: Data("[]".utf8)) }
    }
}

import Foundation
import JOSE
import Testing
import TestSupport

@Suite struct JWSTests {
    @Test func signAndVerifyRoundTrip() throws {
        let token = try RS256Sample.validToken()
        #expect(token.split(separator: ".", omittingEmptySubsequences: false).count == 3)
        let lookup = RS256Sample.KeyLookup()
        let verified = try JWS.verify(token, allowedAlgorithms: [.rs256], key: lookup.callAsFunction)
        #expect(lookup.calls == 1)
        #expect(verified.payload == Data(RS256Sample.claims.utf8))
        #expect(verified.header == JWSHeader(alg: .rs256, typ: "JWT", kid: RS256Sample.kid))
        let headerJSON = try #require(Base64URL.decode(token.split(separator: ".")[0]))
        let header = try #require(JSONSerialization.jsonObject(with: headerJSON) as? [String: String])
        #expect(header == ["alg": "RS256", "typ": "JWT", "kid": RS256Sample.kid])
    }

    @Test func verifiesSubstrings() throws {
        let token = try RS256Sample.validToken()
        let wrapped = "Bearer " + token
        let substring = wrapped.dropFirst("Bearer ".count)
        let lookup = RS256Sample.KeyLookup()
        #expect(try JWS.verify(substring, allowedAlgorithms: [.rs256], key: lookup.callAsFunction).payload == Data(RS256Sample.claims.utf8))
    }

    @Test func signRefusesHeadersItsVerifierWouldReject() throws {
        var header = JWSHeader(kid: RS256Sample.kid)
        header.alg = "HS256"
        #expect(throws: JOSEError.unsupportedAlgorithm) {
            try JWS.sign(payload: Data(RS256Sample.claims.utf8), header: header, key: TestRSAKeys.a)
        }
        header = JWSHeader(kid: RS256Sample.kid)
        header.crit = ["exp"]
        #expect(throws: JOSEError.criticalHeader) {
            try JWS.sign(payload: Data(RS256Sample.claims.utf8), header: header, key: TestRSAKeys.a)
        }
    }

    @Test func tamperedPayloadFails() throws {
        let parts = try RS256Sample.validToken().split(separator: ".")
        let forged = Base64URL.encode(Array(#"{"iss":"https://issuer.example","sub":"mallory","aud":"client"}"#.utf8))
        RS256Sample.expectRefused([parts[0], Substring(forged), parts[2]].joined(separator: "."), with: .badSignature, keyLookedUp: true)
    }

    @Test func tamperedSignatureFails() throws {
        var signature = try #require(Base64URL.decode(try RS256Sample.validToken().split(separator: ".")[2]))
        signature[17] ^= 0x80
        let parts = try RS256Sample.validToken().split(separator: ".")
        RS256Sample.expectRefused(parts[0] + "." + parts[1] + "." + Base64URL.encode(signature), with: .badSignature, keyLookedUp: true)
    }

    @Test func signatureFromAnotherKeyFails() throws {
        RS256Sample.expectRefused(try RS256Sample.validToken(key: TestRSAKeys.b), with: .badSignature, keyLookedUp: true)
    }

    @Test func emptySignatureWithRS256Fails() throws {
        let parts = try RS256Sample.validToken().split(separator: ".")
        RS256Sample.expectRefused(parts[0] + "." + parts[1] + ".", with: .badSignature, keyLookedUp: true)
    }

    @Test func unknownKidIsReported() throws {
        let token = try JWS.sign(payload: Data(RS256Sample.claims.utf8), header: JWSHeader(kid: "someone-else"), key: TestRSAKeys.a)
        RS256Sample.expectRefused(token, with: .unknownKey, keyLookedUp: true)
    }

    @Test func keyLookupErrorsPropagate() throws {
        struct LookupFailed: Error {}
        #expect(throws: LookupFailed.self) {
            try JWS.verify(try RS256Sample.validToken(), allowedAlgorithms: [.rs256]) { _ in throw LookupFailed() }
        }
    }

    @Test func algNoneIsRefusedBeforeKeyLookup() {
        let token = TokenForge.token(header: #"{"alg":"none","typ":"JWT","kid":"test-key"}"#, payload: RS256Sample.claims)
        #expect(token.hasSuffix("."))
        RS256Sample.expectRefused(token, with: .unsupportedAlgorithm, keyLookedUp: false)
    }

    @Test(arguments: [
        #"{"typ":"JWT","kid":"test-key"}"#,
        #"{"alg":"rs256","kid":"test-key"}"#,
        #"{"alg":"PS256","kid":"test-key"}"#,
        #"{"alg":null,"kid":"test-key"}"#,
    ])
    func missingOrUnknownAlgIsRefusedBeforeKeyLookup(_ header: String) throws {
        // Properly RS256-signed, so only the header can be the reason for refusal.
        RS256Sample.expectRefused(try TokenForge.signed(header: header, payload: RS256Sample.claims, key: TestRSAKeys.a),
                           with: .unsupportedAlgorithm, keyLookedUp: false)
    }

    @Test func emptyAllowListRefusesEverything() throws {
        let lookup = RS256Sample.KeyLookup()
        #expect(throws: JOSEError.unsupportedAlgorithm) {
            try JWS.verify(try RS256Sample.validToken(), allowedAlgorithms: [], key: lookup.callAsFunction)
        }
        #expect(lookup.calls == 0)
    }

    @Test(arguments: [
        #"{"alg":"RS256","kid":"test-key","crit":["exp"],"exp":1}"#,
        #"{"alg":"RS256","kid":"test-key","crit":[]}"#,
        #"{"alg":"RS256","kid":"test-key","crit":"exp"}"#,
        #"{"alg":"RS256","kid":"test-key","crit":null}"#,
    ])
    func critHeaderIsRefusedBeforeKeyLookup(_ header: String) throws {
        RS256Sample.expectRefused(try TokenForge.signed(header: header, payload: RS256Sample.claims, key: TestRSAKeys.a),
                           with: .criticalHeader, keyLookedUp: false)
    }

    @Test func paddedSegmentsAreMalformed() throws {
        // Grow the header with JSON whitespace until its base64url form would need padding, then sign the padded
        // input so that padding is the token's only defect.
        var header = #"{"alg":"RS256","kid":"test-key"}"#
        while Base64URL.encode(Array(header.utf8)).count % 4 == 0 { header = " " + header }
        var encodedHeader = Base64URL.encode(Array(header.utf8))
        encodedHeader += String(repeating: "=", count: 4 - encodedHeader.count % 4)
        let input = encodedHeader + "." + Base64URL.encode(Array(RS256Sample.claims.utf8))
        let signature = try TestRSAKeys.a.sign(Array(input.utf8))
        RS256Sample.expectRefused(input + "." + Base64URL.encode(signature), with: .malformed, keyLookedUp: false)

        let token = try RS256Sample.validToken()
        let signatureSegment = try #require(token.split(separator: ".").last)
        #expect(signatureSegment.count % 4 != 0)
        let padding = String(repeating: "=", count: 4 - signatureSegment.count % 4)
        RS256Sample.expectRefused(token + padding, with: .malformed, keyLookedUp: false)
    }

    @Test func segmentCountAndEmptySegmentsAreMalformed() throws {
        let token = try RS256Sample.validToken()
        let parts = token.split(separator: ".").map(String.init)
        let cases = [
            parts[0] + "." + parts[1],
            token + "." + parts[2],
            token + ".",
            "." + parts[1] + "." + parts[2],
            parts[0] + ".." + parts[2],
            "..",
            "",
            parts[0] + "." + parts[1] + "." + parts[2] + "!",
            parts[0] + "." + parts[1].replacingOccurrences(of: "e", with: "+") + "." + parts[2],
        ]
        for candidate in cases {
            RS256Sample.expectRefused(candidate, with: .malformed, keyLookedUp: false)
        }
    }

    @Test(arguments: ["not json", #"["alg","RS256"]"#, #""RS256""#, #"{"alg":"RS256","kid":7}"#, #"{"alg":"RS256""#])
    func nonObjectHeaderIsMalformed(_ header: String) throws {
        RS256Sample.expectRefused(try TokenForge.signed(header: header, payload: RS256Sample.claims, key: TestRSAKeys.a),
                           with: .malformed, keyLookedUp: false)
    }

    /// RFC 7515 §4: a header that names a parameter twice is refused, whichever copy a decoder
    /// would keep, including a second copy spelled with an escape.
    @Test(arguments: [
        #"{"alg":"RS256","kid":"test-key","alg":"none"}"#,
        #"{"alg":"RS256","kid":"test-key","kid":"test-key"}"#,
        #"{"alg":"RS256","kid":"test-key","al\u0067":"RS256"}"#,
        #"{"alg":"RS256","kid":"test-key","x":{"y":[1,{"z":"}"}]},"kid":"other"}"#,
    ])
    func duplicateHeaderMembersAreMalformed(_ header: String) throws {
        RS256Sample.expectRefused(try TokenForge.signed(header: header, payload: RS256Sample.claims, key: TestRSAKeys.a),
                           with: .malformed, keyLookedUp: false)
    }

    @Test func nestedDuplicatesAndLookalikesAreNotTopLevelDuplicates() throws {
        let header = #"{"alg":"RS256","kid":"test-key","x":{"kid":1,"kid":2},"Kid":"y"}"#
        let token = try TokenForge.signed(header: header, payload: RS256Sample.claims, key: TestRSAKeys.a)
        #expect(try JWS.verify(token, allowedAlgorithms: [.rs256], key: RS256Sample.KeyLookup().callAsFunction).header.kid == RS256Sample.kid)
    }

    @Test(arguments: [#"[{"sub":"alice"}]"#, #""alice""#, "42", "not json", "{"])
    func nonObjectPayloadIsMalformedAfterSignatureCheck(_ payload: String) throws {
        RS256Sample.expectRefused(try RS256Sample.validToken(payload: payload), with: .malformed, keyLookedUp: true)
    }

    @Test func oversizedTokenIsRefusedFirst() throws {
        let padding = String(repeating: "x", count: 16 * 1024)
        let token = try RS256Sample.validToken(payload: #"{"pad":"\#(padding)"}"#)
        RS256Sample.expectRefused(token, with: .tooLarge, keyLookedUp: false)
        // Size is checked before structure: garbage that is too long still reports tooLarge.
        RS256Sample.expectRefused(String(repeating: "!", count: 16 * 1024 + 1), with: .tooLarge, keyLookedUp: false)
        RS256Sample.expectRefused(String(repeating: "!", count: 16 * 1024), with: .malformed, keyLookedUp: false)
        // The bound is the caller's to choose.
        let small = try RS256Sample.validToken()
        RS256Sample.expectRefused(small, with: .tooLarge, keyLookedUp: false, maxLength: small.utf8.count - 1)
        let lookup = RS256Sample.KeyLookup()
        #expect(throws: Never.self) {
            try JWS.verify(small, allowedAlgorithms: [.rs256], maxLength: small.utf8.count, key: lookup.callAsFunction)
        }
    }

    @Test func checksRunInTheDocumentedOrder() throws {
        // Each token carries two defects; the earlier check in the documented order must win.
        let none = TokenForge.token(header: #"{"alg":"none","crit":["x"]}"#, payload: "[]")
        RS256Sample.expectRefused(none + "=", with: .malformed, keyLookedUp: false)
        RS256Sample.expectRefused(none, with: .unsupportedAlgorithm, keyLookedUp: false)
        let critUnknownKid = try TokenForge.signed(header: #"{"alg":"RS256","kid":"nobody","crit":["x"]}"#,
                                                   payload: RS256Sample.claims, key: TestRSAKeys.a)
        RS256Sample.expectRefused(critUnknownKid, with: .criticalHeader, keyLookedUp: false)
        let unknownKidBadSignature = try JWS.sign(payload: Data("[]".utf8), header: JWSHeader(kid: "nobody"), key: TestRSAKeys.b)
        RS256Sample.expectRefused(unknownKidBadSignature, with: .unknownKey, keyLookedUp: true)
        let badSignatureArrayPayload = try RS256Sample.validToken(payload: "[]", key: TestRSAKeys.b)
        RS256Sample.expectRefused(badSignatureArrayPayload, with: .badSignature, keyLookedUp: true)
    }

    @Test func errorDescriptionsNeverEchoTokenContent() throws {
        let secret = "very-secret-claim"
        let token = TokenForge.token(header: #"{"alg":"\#(secret)"}"#, payload: #"{"sub":"\#(secret)"}"#)
        do {
            _ = try JWS.verify(token, allowedAlgorithms: [.rs256]) { _ in nil }
            Issue.record("expected a refusal")
        } catch {
            #expect(!String(describing: error).contains(secret))
            #expect(!"\(error)".contains(Base64URL.encode(Array(secret.utf8)).prefix(8)))
        }
    }
}

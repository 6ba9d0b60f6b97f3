import Foundation
@testable import IssuerCore
import Testing

/// The plain JSON objects read without JSONDecoder, and the DPoP proof claims read through them
/// (docs/reference.md, "DPoP"): what is read, and every shape left to JSONDecoder.
@Suite("Plain JSON objects (reference: DPoP)")
struct PlainJSONObjectTests {
    static func object(_ text: String) -> PlainJSONObject? {
        PlainJSONObject(Data(text.utf8))
    }

    @Test("reads names, ASCII strings and integers, with JSON's whitespace anywhere between tokens")
    func readsPlainMembers() throws {
        let object = try #require(Self.object(" {\t\"htm\" : \"POST\",\r\n\"iat\":1800000000, \"neg\": -42, \"zero\":0, \"e\":\"\"} \n"))
        #expect(object.members == [
            "htm": .string("POST"), "iat": .integer(1_800_000_000), "neg": .integer(-42), "zero": .integer(0), "e": .string(""),
        ])
        #expect(Self.object("{}")?.members == [:])
        #expect(Self.object("{\"n\":999999999999999}")?.members == ["n": .integer(999_999_999_999_999)])
        #expect(object["iat"] == .integer(1_800_000_000) && object["missing"] == nil)
    }

    @Test("at most maxMembers members; more go to JSONDecoder")
    func boundsItsMembers() {
        let members = { (count: Int) in "{" + (0..<count).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + "}" }
        #expect(Self.object(members(PlainJSONObject.maxMembers))?.members.count == PlainJSONObject.maxMembers)
        #expect(Self.object(members(PlainJSONObject.maxMembers + 1)) == nil)
    }

    @Test("reads the two-character escapes, as JSON writers send `/` escaped")
    func readsShortEscapes() throws {
        let object = try #require(Self.object(#"{"htu":"https:\/\/a\/t","q":"\"\\\b\f\n\r\t","n\/m":1}"#))
        #expect(object.members == ["htu": .string("https://a/t"), "q": .string("\"\\\u{08}\u{0C}\n\r\t"), "n/m": .integer(1)])
    }

    @Test("leaves everything else to JSONDecoder", arguments: [
        "", " ", "[]", "\"s\"", "1", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{,\"a\":1}", "{\"a\":1}x", "{\"a\":1}{}",
        "{\"a\":\"\\u0041\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\\"}", "{\"a\n\":1}", "{\"a\":\"é\"}", "{\"a\":\"\u{7F}\"}", "{\"a\":\"\t\"}",
        "{\"a\":1.5}", "{\"a\":1e3}", "{\"a\":1E3}", "{\"a\":01}", "{\"a\":-}", "{\"a\":+1}", "{\"a\":-01}",
        "{\"a\":1234567890123456}", "{\"a\":true}", "{\"a\":null}", "{\"a\":[1]}", "{\"a\":{}}", "{\"a\":1,\"a\":1}",
        "{'a':1}", "{a:1}", "\u{FEFF}{}", "{\"a\":1\u{0B}}", "{\"a\":\"unterminated}",
    ])
    func leavesTheRest(text: String) {
        #expect(Self.object(text) == nil)
    }

    @Test("a proof's claims read the same as JSONDecoder reads them, plain or not", arguments: [
        #"{"htm":"POST","htu":"https://a/t","iat":1800000000,"jti":"j1"}"#,
        #"{"htm":"POST","htu":"https://a/t","iat":1800000000,"jti":"j1","ath":"h","nonce":"n","other":7}"#,
        #"{"htm":"PO\u0053T","htu":"https:\/\/a\/t","iat":1800000000,"jti":"j1"}"#,
        #"{"htm":"POST","htu":"https:\/\/a\/t?x=\"y\"","iat":1800000000,"jti":"j\tj"}"#,
        #"{"htm":"POST","htu":"https://a/t","iat":1800000000.25,"jti":"j1","ath":null}"#,
        #"{"htm":"POST","htu":"https://a/t","iat":18e8,"jti":"é"}"#,
    ])
    func claimsReadAsJSONDecoderReads(text: String) throws {
        let data = Data(text.utf8)
        #expect(try DPoPProofClaims.read(data) == JSONDecoder().decode(DPoPProofClaims.self, from: data))
    }

    @Test("claims JSONDecoder refuses are refused, plain or not", arguments: [
        #"{"htu":"https://a/t","iat":1800000000,"jti":"j1"}"#,
        #"{"htm":"POST","htu":"https://a/t","iat":"1800000000","jti":"j1"}"#,
        #"{"htm":1,"htu":"https://a/t","iat":1800000000,"jti":"j1"}"#,
        #"{"htm":"POST","htu":"https://a/t","iat":1800000000,"jti":"j1","ath":5}"#,
        #"{"htm":"POST","htu":"https://a/t","iat":1800000000,"jti":"j1","nonce":7}"#,
        #"["POST"]"#,
    ])
    func claimsRefused(text: String) {
        #expect(throws: (any Error).self) { try DPoPProofClaims.read(Data(text.utf8)) }
    }

    @Test("the plain claims take the plain path: an integer iat, strings without escapes")
    func plainClaimsArePlain() throws {
        let object = try #require(Self.object(#"{"htm":"POST","htu":"https://a/t","iat":1800000000,"jti":"j1","nonce":"n"}"#))
        let claims = try #require(DPoPProofClaims(object))
        #expect(claims.htm == "POST" && claims.htu == "https://a/t" && claims.iat == 1_800_000_000 && claims.jti == "j1")
        #expect(claims.ath == nil && claims.nonce == "n")
        #expect(DPoPProofClaims(try #require(Self.object(#"{"htm":"POST","htu":"https://a/t","iat":1,"jti":"j1","ath":1}"#))) == nil)
    }
}

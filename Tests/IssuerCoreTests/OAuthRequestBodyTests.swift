import Foundation
import IssuerCore
import Testing

/// docs/reference.md, "Requests and errors" and "Faults and bad input": request bodies parse to parameters or to `invalid_request`, never to anything
/// else; repeated parameters are refused in either encoding (RFC 6749 §3.1).
@Suite("OAuth request body parsing")
struct OAuthRequestBodyTests {
    @Test("Form bodies", arguments: [
        ("grant_type=refresh_token&refresh_token=abc", ["grant_type": "refresh_token", "refresh_token": "abc"]),
        ("a=1+2&b=%2B&c=%20x", ["a": "1 2", "b": "+", "c": " x"]),
        ("a=%C3%A9&%C3%A9=b", ["a": "é", "é": "b"]),
        ("a=x=y", ["a": "x=y"]),
        ("a&b=", ["a": "", "b": ""]),
        ("&&a=1&&", ["a": "1"]),
        ("", [:]),
        ("=v", ["": "v"]),
        // NUL and control characters are kept: what a field may hold is the endpoint's decision.
        ("a=%00&b=%0A", ["a": "\u{0}", "b": "\n"]),
        ("a=%25", ["a": "%"]),
    ] as [(String, [String: String])])
    func form(body: String, expected: [String: String]) throws {
        let parsed = try OAuthRequestBody.parse(Array(body.utf8), json: false)
        #expect(parsed.values == expected)
        #expect(parsed.objects.isEmpty)
    }

    @Test("Form bodies refused", arguments: [
        "a=1&a=2", "a=1&a=1", "a&a", "a=%", "a=%2", "a=%zz", "a=%FF", "a=%C3", "a=%C3%28", "a=%C3é", "a=%80%C3%A9", "%=1", "a=1&b=2&a=",
    ])
    func formRefused(body: String) {
        #expect(throws: OAuthError.self) { try OAuthRequestBody.parse(Array(body.utf8), json: false) }
        #expect(Self.code(Array(body.utf8), json: false) == .invalidRequest)
    }

    @Test("JSON bodies", arguments: [
        (#"{"grant_type":"refresh_token","refresh_token":"abc"}"#, ["grant_type": "refresh_token", "refresh_token": "abc"], [:]),
        (#"{"a":null,"b":"x"}"#, ["b": "x"], [:]),
        (#"{"a":"\u0000"}"#, ["a": "\u{0}"], [:]),
        (#"{"name":{"givenName":"Ada","familyName":"Lovelace","n":null}}"#, [:], ["name": ["givenName": "Ada", "familyName": "Lovelace"]]),
        (" {\"a\" : \"é\"}\n", ["a": "é"], [:]),
        // Duplicates inside a nested object are not parameters.
        (#"{"name":{"g":"x","g":"y"},"b":"1"}"#, ["b": "1"], nil),
        (#"{}"#, [:], [:]),
    ] as [(String, [String: String], [String: [String: String]]?)])
    func json(body: String, values: [String: String], objects: [String: [String: String]]?) throws {
        let parsed = try OAuthRequestBody.parse(Array(body.utf8), json: true)
        #expect(parsed.values == values)
        if let objects { #expect(parsed.objects == objects) }
    }

    @Test("JSON bodies refused", arguments: [
        #"{"a":"1","a":"2"}"#, #"{"a":"1","\u0061":"2"}"#, #"{"a":{"x":"1"},"a":"2"}"#,
        #"["a"]"#, #""a""#, "1", "null", "", "{", #"{"a":"1"} x"#, "{\"a\":\"\u{1}\"}",
        "{\"a\":\"1\"}\u{0}", #"{"a":"\ud800"}"#, String(repeating: "[", count: 100_000),
    ])
    func jsonRefused(body: String) {
        #expect(Self.code(Array(body.utf8), json: true) == .invalidRequest)
    }

    @Test("A body that is not UTF-8 is refused in either encoding", arguments: [true, false])
    func notUTF8(json: Bool) {
        for bytes: [UInt8] in [[0xFF], Array("a=".utf8) + [0xC3, 0x28], Array("{\"a\":\"".utf8) + [0xE9] + Array("\"}".utf8)] {
            #expect(Self.code(bytes, json: json) == .invalidRequest)
        }
    }

    @Test("UTF-16 JSON is not guessed at")
    func utf16() {
        let bytes = Array(#"{"a":"b"}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(Self.code(bytes, json: true) == .invalidRequest)
    }

    @Test("Arrays are recorded, not values: refused by an endpoint that reads them, ignored by the others")
    func arrays() throws {
        let parsed = try OAuthRequestBody.parse(Array(#"{"scope":["openid"],"extra":[],"t":"x"}"#.utf8), json: true)
        #expect(parsed.values == ["t": "x"])
        #expect(parsed.arrays == ["scope", "extra"])
    }

    @Test("Numbers and booleans become text; nothing else is a parameter")
    func scalars() throws {
        let parsed = try OAuthRequestBody.parse(Array(#"{"n":12,"t":"x"}"#.utf8), json: true)
        #expect(parsed.values == ["n": "12", "t": "x"])
    }

    static func code(_ bytes: [UInt8], json: Bool) -> OAuthError.Code? {
        do {
            _ = try OAuthRequestBody.parse(bytes, json: json)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("An object with a member that is not a string is recorded as malformed, not dropped and not refused (unknown parameters stay ignored)", arguments: [
        #"{"name":{"given_name":7}}"#, #"{"name":{"given_name":"Ada","family_name":true}}"#,
        #"{"name":{"given_name":["Ada"]}}"#, #"{"name":{"given_name":{"x":"y"}}}"#,
    ])
    func malformedObjects(body: String) throws {
        let parsed = try OAuthRequestBody.parse(Array(body.utf8), json: true)
        #expect(parsed.malformedObjects == ["name"])
        #expect(parsed.objects["name"] == nil)
    }
}

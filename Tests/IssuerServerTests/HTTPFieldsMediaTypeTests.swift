import HTTPTypes
@testable import IssuerServer
import Testing

/// `Content-Type`'s media type as the OAuth and browser endpoints compare it (RFC 9110 §8.3.1).
@Suite struct HTTPFieldsMediaTypeTests {
    @Test(arguments: [
        ("application/x-www-form-urlencoded", "application/x-www-form-urlencoded"),
        ("application/json; charset=utf-8", "application/json"),
        (" Application/JSON\t;charset=UTF-8", "application/json"),
        ("\tapplication/json \t", "application/json"),
        (";application/json", ""),
        ("application/jſon", "application/jſon"),
    ])
    func mediaType(_ value: String, _ expected: String) {
        #expect(HTTPFields([HTTPField(name: .contentType, value: value)]).mediaType == expected)
    }

    @Test func noFieldIsNil() {
        #expect(HTTPFields().mediaType == nil)
    }
}

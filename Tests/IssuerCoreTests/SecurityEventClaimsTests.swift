import Foundation
@testable import IssuerCore
import Testing

/// The registered claims every decoder checks alike (RFC 7519 §4.1; docs/reference.md, "Apple
/// notifications" and "Google's account-protection events"), each failure named.
@Suite("Security event claims")
struct SecurityEventClaimsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func check(_ claims: [String: Any], numbersInText: Bool = false) throws(SecurityEventClaims.Failure) -> SecurityEventClaims {
        let payload = (try? JSONSerialization.data(withJSONObject: claims)) ?? Data()
        return try SecurityEventClaims(
            payload: payload, issuer: "https://sender", audiences: ["ours", "also-ours"], now: now, leeway: 60, numbersInText: numbersInText)
    }

    var good: [String: Any] { ["iss": "https://sender", "aud": ["ours", "theirs"], "iat": 1_800_000_000] }

    func failure(_ change: (inout [String: Any]) -> Void, numbersInText: Bool = false) -> SecurityEventClaims.Failure? {
        var claims = good
        change(&claims)
        do {
            _ = try check(claims, numbersInText: numbersInText)
            return nil
        } catch {
            return error
        }
    }

    @Test("good claims: the audiences that are ours and iat are read")
    func accepted() throws {
        let claims = try check(good)
        #expect(claims.audiences == ["ours"] && claims.issuedAt == 1_800_000_000)
    }

    @Test("each failed check is named, in order")
    func failures() {
        #expect(failure { $0["iss"] = "https://other"; $0["aud"] = "theirs" } == .issuer)
        #expect(failure { $0["aud"] = "theirs" } == .audience)
        #expect(failure { $0["iat"] = nil } == .noIssuedAt)
        #expect(failure { $0["iat"] = 1_800_000_061 } == .issuedInTheFuture)
        #expect(failure { $0["iat"] = 1_800_000_000 - SecurityEventClaims.maximumAge - 1 } == .tooOld)
        #expect(failure { $0["exp"] = 1_799_999_940 } == .expired)
        #expect(failure { $0["exp"] = "later" } == .expired)
        #expect(failure { $0["iat"] = 1_800_000_060; $0["exp"] = 1_799_999_941 } == nil, "both within the leeway")
    }

    @Test("a number in a string is a time only where the sender writes them so; nan and inf never are")
    func numbersInText() {
        #expect(failure { $0["iat"] = "1800000000" } == .noIssuedAt)
        #expect(failure({ $0["iat"] = "1800000000" }, numbersInText: true) == nil)
        #expect(failure({ $0["iat"] = "nan" }, numbersInText: true) == .noIssuedAt)
        #expect(failure({ $0["iat"] = "inf" }, numbersInText: true) == .noIssuedAt)
    }
}

import Foundation
@testable import IssuerCore
import Testing

/// SPEC §4.3's refresh decision, case by case, from the record the rotation statement returns.
@Suite("Refresh decision (SPEC §4.3)")
struct RefreshOutcomeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let successor: [UInt8] = Array(repeating: 7, count: 32)
    static let grace: TimeInterval = 10

    static func record(_ change: (inout RefreshRecord) -> Void = { _ in }) -> RefreshRecord {
        var record = RefreshRecord(
            sessionID: UUID(), generation: 3, tokenExpiresAt: now.addingTimeInterval(3600), spentAt: nil,
            successorHash: nil, clientID: "app", scopes: ["openid", "email", "profile"], nonce: nil,
            authTime: now.addingTimeInterval(-600), sessionExpiresAt: now.addingTimeInterval(86_400), revokedAt: nil,
            rotatedNow: true,
            user: UserProfile(id: UUID(), email: nil, emailVerified: nil, givenName: nil, familyName: nil))
        change(&record)
        return record
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let record: RefreshRecord?
        var clientID = "app"
        var scopes: [String]? = nil
        let expected: RefreshOutcome
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "rotated now", record: record(), expected: .rotated),
        Case(name: "narrower scope", record: record(), scopes: ["openid"], expected: .rotated),
        Case(name: "unknown token", record: nil, expected: .refused("unknown refresh token")),
        Case(name: "another client", record: record(), clientID: "other", expected: .refused("refresh token of another client")),
        Case(name: "wider scope", record: record(), scopes: ["openid", "admin"], expected: .scopeNotGranted),
        Case(name: "revoked session", record: record { $0.revokedAt = now.addingTimeInterval(-1); $0.rotatedNow = false },
             expected: .refused("session revoked")),
        Case(name: "session at its maximum age", record: record { $0.sessionExpiresAt = now; $0.rotatedNow = false },
             expected: .refused("session past its maximum age")),
        Case(name: "expired, never spent", record: record { $0.rotatedNow = false },
             expected: .refused("refresh token expired")),
        Case(name: "retry inside the grace window",
             record: record { $0.rotatedNow = false; $0.spentAt = now.addingTimeInterval(-grace); $0.successorHash = successor },
             expected: .retry),
        Case(name: "retry one second after the grace window",
             record: record { $0.rotatedNow = false; $0.spentAt = now.addingTimeInterval(-grace - 1); $0.successorHash = successor },
             expected: .reuse),
        Case(name: "spent with another successor (not our derivation)",
             record: record { $0.rotatedNow = false; $0.spentAt = now; $0.successorHash = Array(repeating: 8, count: 32) },
             expected: .reuse),
        Case(name: "revoked wins over a retry",
             record: record {
                 $0.rotatedNow = false; $0.spentAt = now; $0.successorHash = successor; $0.revokedAt = now
             },
             expected: .refused("session revoked")),
        Case(name: "another client's token is refused before its scope is considered",
             record: record(), clientID: "other", scopes: ["admin"], expected: .refused("refresh token of another client")),
    ]

    @Test(arguments: cases)
    func decides(_ testCase: Case) {
        let outcome = RefreshOutcome.decide(
            record: testCase.record, clientID: testCase.clientID, requestedScopes: testCase.scopes,
            successorHash: Self.successor, now: Self.now, grace: Self.grace)
        #expect(outcome == testCase.expected)
    }
}

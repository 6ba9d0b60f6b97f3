import Foundation
@testable import IssuerCore
import Testing

/// the refresh decision in Swift (docs/reference.md, "Refresh tokens and sessions"): how each verdict of the rotation statement is answered,
/// and the one thing Swift decides itself, whether a spent token is a retry or a theft. The
/// verdicts themselves, and their order, are the statement's (`RefreshRotationStoringContractTests`).
@Suite("Refresh decision (reference: Refresh tokens and sessions)")
struct RefreshOutcomeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let successor: [UInt8] = Array(repeating: 7, count: 32)
    static let grace: Duration = .seconds(10)

    static func record(_ verdict: RefreshVerdict, _ change: (inout RefreshRecord) -> Void = { _ in }) -> RefreshRecord {
        var record = RefreshRecord(
            verdict: verdict, sessionID: UUID(), generation: 3, spentAt: nil, successorHash: nil,
            scopes: ["openid", "email", "profile"], authTime: now.addingTimeInterval(-600),
            sessionExpiresAt: now.addingTimeInterval(86_400),
            user: UserProfile(id: UUID(), email: nil, emailVerified: nil, givenName: nil, familyName: nil))
        change(&record)
        return record
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let record: RefreshRecord?
        let expected: RefreshOutcome
        var testDescription: String { name }
    }

    static let rotated = record(.rotated)
    static let retry = record(.spent) { $0.spentAt = now.addingTimeInterval(-grace.timeInterval); $0.successorHash = successor }
    static let late = record(.spent) { $0.spentAt = now.addingTimeInterval(-grace.timeInterval - 1); $0.successorHash = successor }
    static let keyMismatch = record(.keyMismatch) { $0.spentAt = now.addingTimeInterval(-grace.timeInterval - 60); $0.successorHash = successor }
    static let foreign = record(.spent) { $0.spentAt = now; $0.successorHash = Array(repeating: 8, count: 32) }

    static let cases: [Case] = [
        Case(name: "rotated now", record: rotated, expected: .rotated(rotated)),
        Case(name: "unknown token", record: nil, expected: .refused("unknown refresh token")),
        Case(name: "another client", record: record(.anotherClient), expected: .refused("refresh token of another client")),
        Case(name: "wider scope", record: record(.scopeNotGranted), expected: .scopeNotGranted),
        Case(name: "revoked session", record: record(.revoked), expected: .refused("session revoked")),
        Case(name: "session at its maximum age", record: record(.sessionExpired),
             expected: .refused("session past its maximum age")),
        Case(name: "expired, never spent", record: record(.expired), expected: .refused("refresh token expired")),
        Case(name: "retry inside the grace window", record: retry, expected: .retry(retry)),
        // docs/reference.md, "DPoP": a spent token of a bound session, presented late without the
        // key, is refused, never taken for theft (the owner's session stays).
        Case(name: "bound session without its key, spent long ago", record: keyMismatch,
             expected: .refused("no DPoP proof from the key the session is bound to")),
        Case(name: "retry one second after the grace window", record: late, expected: .reuse(late)),
        Case(name: "spent with another successor (not our derivation)", record: foreign, expected: .reuse(foreign)),
    ]

    @Test(arguments: cases)
    func decides(_ testCase: Case) {
        let outcome = RefreshOutcome.decide(record: testCase.record, successorHash: Self.successor, now: Self.now, grace: Self.grace)
        #expect(outcome == testCase.expected)
    }

    @Test("every verdict the statement can return is decided (none falls through to a default)")
    func everyVerdict() {
        for verdict in RefreshVerdict.allCases {
            let outcome = RefreshOutcome.decide(record: Self.record(verdict), successorHash: Self.successor, now: Self.now, grace: Self.grace)
            switch (verdict, outcome) {
            case (.rotated, .rotated), (.spent, .reuse), (.scopeNotGranted, .scopeNotGranted),
                 (.anotherClient, .refused), (.revoked, .refused), (.sessionExpired, .refused), (.expired, .refused),
                 (.keyMismatch, .refused), (.proofReplayed, .refused):
                continue
            default:
                Issue.record("verdict \(verdict) decided as \(outcome)")
            }
        }
    }
}

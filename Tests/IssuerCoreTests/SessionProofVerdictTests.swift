import Foundation
import IssuerCore
import Testing

/// The two-proofs decision without a database (docs/reference.md, "Two proofs of one session").
@Suite("Two proofs: the verdict on a presented refresh token")
struct SessionProofVerdictTests {
    static let session = UUID()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let ours: [UInt8] = Array(repeating: 1, count: 32)

    static func decide(_ record: SessionProofRecord?, bearer: UUID = session) -> SessionProofVerdict {
        SessionProofVerdict.decide(record: record, bearerSession: bearer, successorHash: ours, now: now, grace: .seconds(10))
    }

    @Test("the current token of the bearer's session proves it")
    func current() {
        #expect(Self.decide(SessionProofRecord(state: .current, sessionID: Self.session)) == .proven)
    }

    static func isRefused(_ verdict: SessionProofVerdict) -> Bool {
        if case .refused = verdict { return true }
        return false
    }

    @Test("another session's token, whatever its state, and an unknown one: refused, never a revocation", arguments: [
        SessionProofRecord.State.current, .spent, .revoked, .sessionExpired, .expired,
    ])
    func otherSession(state: SessionProofRecord.State) {
        #expect(Self.isRefused(Self.decide(SessionProofRecord(state: state, sessionID: UUID(), spentAt: Self.now, successorHash: Self.ours))))
        #expect(Self.isRefused(Self.decide(nil)))
    }

    @Test("the bearer's session revoked or past its age, or the token expired: refused", arguments: [
        SessionProofRecord.State.revoked, .sessionExpired, .expired,
    ])
    func dead(state: SessionProofRecord.State) {
        #expect(Self.isRefused(Self.decide(SessionProofRecord(state: state, sessionID: Self.session))))
    }

    @Test("a spent token: a retry inside the grace with our successor proves; after it, or with another successor, it is theft")
    func spent() {
        let inGrace = SessionProofRecord(state: .spent, sessionID: Self.session, spentAt: Self.now.addingTimeInterval(-5), successorHash: Self.ours)
        #expect(Self.decide(inGrace) == .proven)
        let late = SessionProofRecord(state: .spent, sessionID: Self.session, spentAt: Self.now.addingTimeInterval(-11), successorHash: Self.ours)
        #expect(Self.decide(late) == .reuse(sessionID: Self.session))
        let foreign = SessionProofRecord(state: .spent, sessionID: Self.session, spentAt: Self.now.addingTimeInterval(-5), successorHash: [0])
        #expect(Self.decide(foreign) == .reuse(sessionID: Self.session))
    }
}

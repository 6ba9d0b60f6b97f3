import Foundation
import IssuerCore
import Testing
import TestSupport

/// docs/reference.md, "DPoP": server nonces are stateless (RFC 9449 §8), an HMAC of a 60-second
/// step under the server secret, accepted for the current and the previous step.
@Suite("DPoP server nonces (reference: DPoP)")
struct DPoPNoncesTests {
    private let secret = ServerSecret(bytes: Array(repeating: 7, count: 32))

    @Test("a nonce is accepted in its own step and the next, not after; two holders of the secret agree")
    func lifetime() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let issuing = DPoPNonces(secret: secret, clock: clock)
        let otherProcess = DPoPNonces(secret: secret, clock: clock)
        let nonce = issuing.current()
        #expect(otherProcess.current() == nonce)
        #expect(otherProcess.accepts(nonce))
        clock.advance(by: DPoPNonces.step)
        #expect(issuing.current() != nonce)
        #expect(otherProcess.accepts(nonce))
        clock.advance(by: DPoPNonces.step)
        #expect(!otherProcess.accepts(nonce))
        #expect(otherProcess.accepts(issuing.current()))
    }

    @Test("a process whose clock is one step behind accepts the nonce another handed out, not one two steps ahead")
    func clockSkew() {
        let ahead = ManualClock(Date(timeIntervalSince1970: 1_800_000_000 + DPoPNonces.step))
        let behind = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        #expect(DPoPNonces(secret: secret, clock: behind).accepts(DPoPNonces(secret: secret, clock: ahead).current()))
        ahead.advance(by: DPoPNonces.step)
        #expect(!DPoPNonces(secret: secret, clock: behind).accepts(DPoPNonces(secret: secret, clock: ahead).current()))
    }

    @Test("another secret's nonce, a truncated or empty one and none at all are refused")
    func refusals() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let nonces = DPoPNonces(secret: secret, clock: clock)
        let foreign = DPoPNonces(secret: ServerSecret(bytes: Array(repeating: 8, count: 32)), clock: clock).current()
        #expect(!nonces.accepts(foreign))
        #expect(!nonces.accepts(String(nonces.current().dropLast())))
        #expect(!nonces.accepts(""))
        #expect(!nonces.accepts(nil))
        #expect(nonces.current().count == 22)
    }
}

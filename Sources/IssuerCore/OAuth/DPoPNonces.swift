import Crypto
import Foundation
import JOSE

/// Server-provided DPoP nonces (RFC 9449 §8), stateless so that every process of a deployment
/// agrees without a shared store: a nonce is an HMAC-SHA256 of the current 60-second step under
/// the server secret's `dpop-nonce` subkey, truncated to 128 bits. A proof's nonce is accepted
/// when it is the current step's or the previous step's, so a nonce handed out at the end of a
/// step still works for the client's next request, or the next step's, so a process whose clock
/// is a little behind another's accepts the nonce that one handed out. docs/reference.md, "DPoP".
public struct DPoPNonces: Sendable {
    /// The length of one step: a nonce lives between one and two of them.
    public static let step: TimeInterval = 60
    /// Bytes of the MAC kept in a nonce: enough that guessing one is hopeless within its life.
    static let length = 16

    // Bytes, not a `SymmetricKey`: swift-crypto's key type is not `Sendable` on Linux.
    private let key: [UInt8]
    private let clock: any WallClock

    /// - Parameter secret: `ISSUER_SECRET` (or the one kept in the database), the same in every
    ///   process, which is what makes the nonces agree.
    public init(secret: ServerSecret, clock: any WallClock) {
        self.key = secret.key(for: "dpop-nonce").withUnsafeBytes { Array($0) }
        self.clock = clock
    }

    /// The nonce a client should put in its next proof (the `DPoP-Nonce` header).
    public func current() -> String {
        nonce(forStep: Self.stepNumber(clock.now))
    }

    /// Whether `nonce` is the previous, current or next step's, compared in constant time.
    public func accepts(_ nonce: String?) -> Bool {
        guard let nonce else { return false }
        let now = Self.stepNumber(clock.now)
        let presented = Array(nonce.utf8)
        // Every comparison runs, so the time taken says nothing about which step matched.
        var matched = false
        for step in (now - 1)...(now + 1) {
            matched = ConstantTime.equals(presented, Array(self.nonce(forStep: step).utf8)) || matched
        }
        return matched
    }

    private func nonce(forStep step: Int64) -> String {
        var message = Array("dpop-nonce:".utf8)
        withUnsafeBytes(of: step.bigEndian) { message.append(contentsOf: $0) }
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return Base64URL.encode(Array(Array(mac).prefix(Self.length)))
    }

    private static func stepNumber(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / step).rounded(.down))
    }
}

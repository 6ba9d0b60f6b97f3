import Foundation

/// Why `issuer keys rotate` did not rotate (SPEC §5, §6); each description is the CLI's one-line reason.
public enum KeyRotationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is nothing to rotate before `issuer keys init`.
    case emptyRing(directory: String)
    /// The ring has an active key but no next key to promote (only possible after a hand edit).
    case noNextKey(activeKid: String)
    /// SPEC §5: the next key has not been published long enough for verifiers to have cached it.
    case tooEarly(nextKid: String, enteredAt: Date, allowedAt: Date, now: Date)

    /// One line an operator can act on; for ``tooEarly(nextKid:enteredAt:allowedAt:now:)`` it says when rotation will be allowed (SPEC §6).
    public var description: String {
        switch self {
        case .emptyRing(let directory):
            "the key ring in \(directory) is empty: run `issuer keys init` first"
        case .noNextKey(let activeKid):
            "the ring has no next key to promote over active key \(activeKid): run `issuer keys init` to add one, then rotate once it has been published for 360 s (or use --force in an emergency)"
        case .tooEarly(let kid, let enteredAt, let allowedAt, let now):
            "not rotating: next key \(kid) entered the ring at \(enteredAt.ISO8601Format()) and may be promoted from \(allowedAt.ISO8601Format()) (in \(ReadableInterval(allowedAt.timeIntervalSince(now)))), once verifiers' cached JWKS (max-age 300 s + 60 s) include it; --force overrides this in an emergency"
        }
    }
}

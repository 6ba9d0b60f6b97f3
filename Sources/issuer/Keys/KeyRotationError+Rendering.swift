import Foundation
import IssuerCore

extension KeyRotationError {
    /// One line an operator can act on; for ``tooEarly(nextKid:enteredAt:allowedAt:now:)`` it says
    /// when rotation will be allowed (docs/reference.md, "Admin CLI").
    var message: String {
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

import Foundation
import IssuerCore

extension CompletedRotation {
    /// The line `issuer keys rotate` prints (docs/reference.md, "Admin CLI").
    var message: String {
        "rotated: \(promoted.kid) is now active; \(retired.kid) retired, published until \((retired.publishedUntil ?? rotatedAt).ISO8601Format()); new next key \(next.kid)"
    }

    /// What a `--force` rotation risked, for stderr (docs/reference.md, "Signing keys"); nil when forcing changed nothing.
    var warning: String? {
        switch forced {
        case nil:
            nil
        case .promotedEarly(let kid, let publishedAt, let promotableAt, let promotionDelay):
            "forced rotation: next key \(kid) has been published for only \(ReadableInterval(rotatedAt.timeIntervalSince(publishedAt))) (less than \(promotionDelay.wholeSeconds) s); verifiers that have not yet fetched the new key will reject tokens signed with it until they refresh the JWKS (up to \(ReadableInterval(promotableAt.timeIntervalSince(rotatedAt))) more)"
        case .promotedUnpublished(let kid, let promotionDelay):
            "forced rotation without a next key: new active key \(kid) was never published; verifiers will reject tokens signed with it until they refresh the JWKS (up to \(promotionDelay.wholeSeconds) s)"
        }
    }
}

import Foundation
import IssuerCore

extension KeyRotationOutcome {
    /// The line `issuer keys rotate --if-older-than` prints, rotated or not (docs/reference.md, "Admin CLI").
    var message: String {
        switch self {
        case .rotated(let completed): completed.message
        case .skipped(let skip): skip.message
        }
    }
}

extension KeyRotationSkip {
    /// Why cron's rotation did nothing (or only prepared a next key), in one line (docs/reference.md, "Admin CLI").
    var message: String {
        switch self {
        case .notDue(let activeKid, let activatedAt, let minimumAge, let dueAt, let now):
            "active key \(activeKid) was activated at \(activatedAt.ISO8601Format()), \(ReadableInterval(now.timeIntervalSince(activatedAt))) ago, less than \(ReadableInterval(minimumAge.timeInterval)): not rotating before \(dueAt.ISO8601Format())"
        case .addedNextKey(let activeKid, let nextKid, let promotableAt):
            "active key \(activeKid) is due for rotation but the ring had no next key: created next key \(nextKid), promotable from \(promotableAt.ISO8601Format())"
        case .tooEarly(let refusal):
            refusal.message
        }
    }
}

import Foundation

/// Why `issuer keys rotate --if-older-than` did not rotate (docs/reference.md, "Signing keys" and "Admin CLI"). The CLI words it.
public enum KeyRotationSkip: Sendable, Equatable {
    /// The active key `activeKid`, active since `activatedAt`, is younger than `minimumAge`; rotation is due at `dueAt`.
    case notDue(activeKid: String, activatedAt: Date, minimumAge: Duration, dueAt: Date, now: Date)
    /// Due, but the ring had no next key: `nextKid` was created, promotable from `promotableAt`.
    case addedNextKey(activeKid: String, nextKid: String, promotableAt: Date)
    /// Due, but the next key has not been published long enough (a ``KeyRotationError/tooEarly(nextKid:enteredAt:allowedAt:now:)``).
    case tooEarly(KeyRotationError)
}

/// The result of `issuer keys rotate --if-older-than` (docs/reference.md, "Signing keys" and "Admin CLI"): for cron, "not due" and "not
/// yet allowed" are normal outcomes with a reason, not failures.
public enum KeyRotationOutcome: Sendable {
    /// The ring was rotated.
    case rotated(CompletedRotation)
    /// Nothing was rotated; the reason says why (and what, if anything, was prepared instead).
    case skipped(KeyRotationSkip)
}

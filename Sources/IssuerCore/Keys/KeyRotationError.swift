import Foundation

/// Why `issuer keys rotate` did not rotate (SPEC §5, §6); the CLI words each case as its one-line reason.
public enum KeyRotationError: Error, Sendable, Equatable {
    /// There is nothing to rotate before `issuer keys init`.
    case emptyRing(directory: String)
    /// The ring has an active key but no next key to promote (only possible after a hand edit).
    case noNextKey(activeKid: String)
    /// SPEC §5: the next key has not been published long enough for verifiers to have cached it.
    case tooEarly(nextKid: String, enteredAt: Date, allowedAt: Date, now: Date)
}

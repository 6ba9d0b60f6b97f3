import Foundation

/// Why `issuer keys rotate` did not rotate (docs/reference.md, "Signing keys" and "Admin CLI"); the CLI words each case as its one-line reason.
public enum KeyRotationError: Error, Sendable, Equatable {
    /// There is nothing to rotate before `issuer keys init`.
    case emptyRing(directory: String)
    /// The ring has an active key but no next key to promote (only possible after a hand edit).
    case noNextKey(activeKid: String)
    /// docs/reference.md, "Signing keys": the next key has not been published long enough for verifiers to have cached it.
    case tooEarly(nextKid: String, enteredAt: Date, allowedAt: Date, now: Date)
}

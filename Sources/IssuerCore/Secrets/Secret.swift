/// A value that must never be printed: a password-bearing database URL, the server secret, a
/// client secret. Every printing path Swift has — `description`, `debugDescription`, string
/// interpolation, `dump`, and the reflection that prints a containing struct (as
/// service-lifecycle's debug line prints every service) — shows `<redacted>`; only `revealed`
/// gives the value, so each use of it is one searchable word (docs/reference.md, "Logs").
public struct Secret<Value: Sendable>: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The value itself, for the one place that needs it (opening a connection, deriving keys).
    public let revealed: Value

    /// Wraps `value`.
    public init(_ value: Value) {
        self.revealed = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension Secret: Equatable where Value: Equatable {}

/// Hashed by the value, so that a value holding a secret (a proxy's credentials) can key a
/// dictionary; the hash is never printed.
extension Secret: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(revealed)
    }
}

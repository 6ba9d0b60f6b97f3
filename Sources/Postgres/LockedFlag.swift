import Synchronization

/// A Boolean shared across threads.
final class LockedFlag: Sendable {
    private let value = Mutex(false)

    func set(_ newValue: Bool) { value.withLock { $0 = newValue } }

    /// Sets the flag and answers what it was.
    func exchange(_ newValue: Bool) -> Bool {
        value.withLock { old in
            defer { old = newValue }
            return old
        }
    }
}

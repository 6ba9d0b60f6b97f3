import Synchronization

/// Runs async work that may never return (a call stuck in libpq) and answers without waiting
/// for it: its result, or nil once `seconds` pass. A task group would wait for the stuck child
/// and hang the test instead of failing it.
public enum WithinBound {
    /// `body`'s result, or nil if it has none within `seconds`.
    public static func result<T: Sendable>(
        seconds: Double, _ body: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error>? {
        let slot = Mutex<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)
        return await withCheckedContinuation { continuation in
            slot.withLock { $0 = continuation }
            let finish: @Sendable (Result<T, any Error>?) -> Void = { outcome in
                slot.withLock { $0.take() }?.resume(returning: outcome)
            }
            Task {
                do {
                    finish(.success(try await body()))
                } catch {
                    finish(.failure(error))
                }
            }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                finish(nil)
            }
        }
    }

    /// `body`'s value, or `Timeout` thrown once `seconds` pass without one: for a test that goes
    /// on with the value, and fails (rather than hangs) if it never comes.
    public static func value<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let outcome = await result(seconds: seconds, body) else { throw Timeout(seconds: seconds) }
        return try outcome.get()
    }

    /// The call did not return within `seconds`.
    public struct Timeout: Error, CustomStringConvertible {
        public let seconds: Double
        public var description: String { "the call did not return within \(seconds) s" }
    }
}

import Foundation

/// Runs blocking test set-up (starting clusters, waiting on child processes) on its own thread,
/// never on the cooperative pool that the code under test needs.
public enum Offload {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}

import Foundation

/// What a provider's data deletion requests need of the database (docs/reference.md,
/// "Facebook's callbacks"): the confirmation code, its provider and when it was received.
public protocol DataDeletionRequestStoring: Sendable {
    /// Records a request under `code` unless it is recorded; answers when it was first received.
    func record(code: String, provider: String, receivedAt: Date) async throws -> Date
    /// When the request with `code` was received; nil for a code never answered.
    func receivedAt(code: String) async throws -> Date?
}

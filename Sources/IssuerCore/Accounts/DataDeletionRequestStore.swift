import Foundation
import Postgres

/// What a provider's data deletion requests need of the database (docs/reference.md,
/// "Facebook's callbacks"): the confirmation code, its provider and when it was received.
public protocol DataDeletionRequestStoring: Sendable {
    /// Records a request under `code` unless it is recorded; answers when it was first received.
    func record(code: String, provider: String, receivedAt: Date) async throws -> Date
    /// When the request with `code` was received; nil for a code never answered.
    func receivedAt(code: String) async throws -> Date?
}

/// `DataDeletionRequestStoring` over PostgreSQL.
public struct DataDeletionRequestStore: DataDeletionRequestStoring {
    private let pool: ConnectionPool

    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    public func record(code: String, provider: String, receivedAt: Date) async throws -> Date {
        // One statement: a request delivered twice keeps its first time.
        let row = try await pool.query("""
            WITH inserted AS (
                INSERT INTO data_deletion_requests (code, provider, received_at) VALUES ($1, $2, $3)
                ON CONFLICT (code) DO NOTHING RETURNING received_at
            )
            SELECT received_at FROM inserted
            UNION ALL SELECT received_at FROM data_deletion_requests WHERE code = $1
            LIMIT 1
            """, [code, provider, receivedAt]).single
        return try row?.decode(column: "received_at") ?? receivedAt
    }

    public func receivedAt(code: String) async throws -> Date? {
        try await pool.query("SELECT received_at FROM data_deletion_requests WHERE code = $1", [code]).single?.decode(column: "received_at")
    }
}

import Foundation
import IssuerCore
import Postgres

/// `DataDeletionRequestStoring` over PostgreSQL.
public struct DataDeletionRequestStore: DataDeletionRequestStoring {
    private let pool: ConnectionPool

    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    public func record(code: String, provider: String, receivedAt: Date) async throws -> Date {
        // One statement (two only after a lost race, below): a request delivered twice keeps its
        // first time.
        let row = try await pool.query("""
            WITH inserted AS (
                INSERT INTO data_deletion_requests (code, provider, received_at) VALUES ($1, $2, $3)
                ON CONFLICT (code) DO NOTHING RETURNING received_at
            )
            SELECT received_at FROM inserted
            UNION ALL SELECT received_at FROM data_deletion_requests WHERE code = $1
            LIMIT 1
            """, [code, provider, receivedAt]).single
        if let row { return try row.decode(column: "received_at") }
        // No row: a concurrent first delivery inserted the code after this statement's snapshot
        // was taken (its insert waited for that one, then did nothing), so the row it committed
        // is read now. Only a race costs this second statement.
        return try await self.receivedAt(code: code) ?? receivedAt
    }

    public func receivedAt(code: String) async throws -> Date? {
        try await pool.query("SELECT received_at FROM data_deletion_requests WHERE code = $1", [code]).single?.decode(column: "received_at")
    }
}

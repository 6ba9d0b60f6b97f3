import Foundation
import IssuerCore
import Postgres

/// `ServerSecretStoring` over PostgreSQL: the `server_secret` table's one row, created by
/// whichever process asks first. Concurrent first starts agree: the insert is conditional and
/// the loser reads the winner's row, in the same statement.
public struct ServerSecretStore: ServerSecretStoring {
    let pool: ConnectionPool

    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    public func secret(offering candidate: [UInt8]) async throws -> [UInt8] {
        try await pool.withConnection { connection in
            for _ in 0..<3 {
                let row = try connection.query("""
                    WITH inserted AS (
                        INSERT INTO server_secret (secret) VALUES ($1)
                        ON CONFLICT (singleton) DO NOTHING
                        RETURNING secret
                    )
                    SELECT secret FROM inserted
                    UNION ALL
                    SELECT secret FROM server_secret
                    LIMIT 1
                    """, [candidate]).single
                // Empty only when another process committed its row after this statement's
                // snapshot was taken; the next try sees it.
                if let row { return try row.decode([UInt8].self, column: "secret") }
            }
            throw PostgresError.decoding("server_secret has no row")
        }
    }
}

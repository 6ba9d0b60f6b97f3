import Postgres

/// The SQL of `/readyz`'s database check (docs/reference.md, "Operations").
public struct ReadinessStore: Sendable {
    private let pool: ConnectionPool

    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// Whether the database answers a trivial query. The pool fails fast while the server is
    /// down, and gives up at its deadline when the server is silent (docs/reference.md, "Faults
    /// and bad input"), so this never hangs.
    public func databaseAnswers() async -> Bool {
        (try? await pool.query("SELECT 1 AS answer").single?.decode(Int.self, column: "answer")) == 1
    }
}

import Postgres

/// The SQL of `/readyz`'s database check (docs/reference.md, "Operations").
struct ReadinessStore: Sendable {
    let pool: ConnectionPool

    /// Whether the database answers a trivial query. The pool fails fast while the server is
    /// down, and gives up at its deadline when the server is silent (docs/reference.md, "Faults
    /// and bad input"), so this never hangs.
    func databaseAnswers() async -> Bool {
        (try? await pool.query("SELECT 1 AS answer").single?.decode(Int.self, column: "answer")) == 1
    }
}

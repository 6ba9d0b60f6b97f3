import Foundation
import IssuerCore
import Postgres

/// The ids of events received from identity providers, so that each is applied once (Apple's
/// notifications, docs/reference.md, "Apple notifications"; Google's security event tokens,
/// docs/reference.md, "Google's account-protection events"). A sender may deliver an event twice
/// and two processes may receive the same one: the id is recorded in the transaction that applies
/// the event, and a second recording of it fails, so nothing is applied twice.
public struct ReceivedEventStore: Sendable {
    private let pool: ConnectionPool

    /// Pruned on `pool` (recorded on the connection of the transaction applying the event).
    public init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// How long an id is remembered: far longer than a sender keeps redelivering, and longer than
    /// the 7 days after which a token is refused by its age, so a captured token is refused by
    /// its age before its id could be forgotten.
    public static let retention: Duration = .seconds(30 * 24 * 3600)

    /// Records the id inside the caller's transaction, under its `sender` (the decoder's name for
    /// it: a `jti` is unique to its sender only, RFC 8417 §2.2); false when it was recorded before
    /// (a redelivery: nothing to apply).
    static func record(sender: String, jti: String, type: String, on connection: Connection, now: Date) throws -> Bool {
        try connection.query(
            "INSERT INTO received_events (sender, jti, event_type, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT (sender, jti) DO NOTHING",
            [sender, jti, type, now]).affectedRows == 1
    }

    /// Forgets ids older than `retention`, in one small batch (the background worker calls it every pass).
    public func prune(now: Date) async throws {
        try await pool.query("""
            DELETE FROM received_events WHERE (sender, jti) IN (
                SELECT sender, jti FROM received_events WHERE received_at < $1 LIMIT 500 FOR UPDATE SKIP LOCKED)
            """, [now.addingTimeInterval(-Self.retention.timeInterval)])
    }
}

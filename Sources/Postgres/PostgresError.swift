/// A failure talking to PostgreSQL, typed so that callers can decide what it means for them
/// (a unique violation on a code is `invalid_grant`; an unreachable server is
/// `temporarily_unavailable`) without parsing messages.
public enum PostgresError: Error, Sendable, CustomStringConvertible {
    /// The server cannot be reached, or the connection broke mid-call. Callers may retry later;
    /// the pool reconnects by itself.
    case unavailable(String)
    /// The server answered with an error; `sqlState` is its SQLSTATE code, and `constraint` the
    /// constraint it names, if any (a unique or foreign-key violation), so that callers decide by
    /// name rather than by reading the message.
    case server(sqlState: SQLState, message: String, constraint: String? = nil)
    /// A value in a row could not be decoded as the requested Swift type.
    case decoding(String)
    /// The pool was closed while the call waited or ran.
    case poolClosed
    /// The connection settings are wrong, not the database away: libpq refused an option
    /// (`sslmode=bogus`), or the server refused the role, its password or the database. Waiting
    /// does not help; an operator must fix the setting (docs/reference.md, "Admin CLI": exit 2).
    case misconfigured(String)

    /// The SQLSTATE of a server error, if this is one.
    public var sqlState: SQLState? {
        if case .server(let state, _, _) = self { return state }
        return nil
    }

    /// The constraint a server error names (PostgreSQL's `PG_DIAG_CONSTRAINT_NAME`), if any.
    public var constraint: String? {
        if case .server(_, _, let constraint) = self { return constraint }
        return nil
    }

    /// True for errors that say the database is (for now) out of reach, including a pool that
    /// is closing because the process is shutting down.
    public var isUnavailable: Bool {
        switch self {
        case .unavailable, .poolClosed: return true
        case .server(let state, _, _):
            // A statement cancelled by the statement timeout (or an operator) means a database too
            // slow or too locked to answer now: an outage to retry, like no answer at all.
            return (state.isConnectionException && state != .protocolViolation) || state == .adminShutdown
                || state == .cannotConnectNow || state == .queryCanceled
        default: return false
        }
    }

    /// True when the connection settings are at fault (`misconfigured`).
    public var isMisconfiguration: Bool {
        if case .misconfigured = self { return true }
        return false
    }

    /// For logs: may carry the server's message, so it is never shown to a client.
    public var description: String {
        switch self {
        case .unavailable(let reason): return "database unavailable: \(reason)"
        case .server(let state, let message, _): return "database error \(state.rawValue): \(message)"
        case .decoding(let reason): return "cannot decode database value: \(reason)"
        case .poolClosed: return "database pool is closed"
        case .misconfigured(let reason): return "database refused the connection settings: \(reason)"
        }
    }
}

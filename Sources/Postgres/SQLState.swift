/// A PostgreSQL SQLSTATE code (PostgreSQL manual, Appendix A). Only the codes the issuer acts on
/// have names; every other code is still carried verbatim.
public struct SQLState: RawRepresentable, Hashable, Sendable {
    /// The five-character code, e.g. `23505`.
    public let rawValue: String
    /// Any code, named here or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// 23505: a unique constraint rejected the row.
    public static let uniqueViolation = SQLState(rawValue: "23505")
    /// 23503: a foreign key rejected the row.
    public static let foreignKeyViolation = SQLState(rawValue: "23503")
    /// 40001: a serializable transaction lost a race; retrying it may succeed.
    public static let serializationFailure = SQLState(rawValue: "40001")
    /// 40P01: the transaction was chosen as a deadlock victim.
    public static let deadlockDetected = SQLState(rawValue: "40P01")
    /// 57P01: the server is shutting down (e.g. `pg_ctl stop -m fast`).
    public static let adminShutdown = SQLState(rawValue: "57P01")
    /// 57P03: the server is starting up or in recovery.
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    /// 57014: the statement was cancelled (statement_timeout).
    public static let queryCanceled = SQLState(rawValue: "57014")

    /// 08P01: the server saw a malformed protocol message, e.g. a bind with the wrong number of
    /// parameters: our bug, not an outage, although the connection is dropped all the same.
    public static let protocolViolation = SQLState(rawValue: "08P01")

    /// Class 08: connection exceptions.
    public var isConnectionException: Bool { rawValue.hasPrefix("08") }
}

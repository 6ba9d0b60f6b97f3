import IssuerCore
import Postgres

/// An unreachable database, or one that refuses our connection settings, leaves the service
/// unavailable (503) until it is back or fixed; a statement's own failure is our fault (500).
extension PostgresError: StorageFailure {
    public var leavesServiceUnavailable: Bool { isUnavailable || isMisconfiguration }
}

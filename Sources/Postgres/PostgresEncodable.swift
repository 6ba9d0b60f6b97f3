import Foundation

/// One bound parameter as libpq takes it: the bytes and whether they are text (0) or binary (1).
public struct PostgresParameter: Sendable {
    public var bytes: [UInt8]
    public var isBinary: Bool

    public init(text: String) {
        self.bytes = Array(text.utf8)
        self.isBinary = false
    }

    public init(binary: [UInt8]) {
        self.bytes = binary
        self.isBinary = true
    }
}

/// A Swift value that can be sent as a query parameter. Parameters are always bound
/// (`PQexecParams`/`PQexecPrepared`), never spliced into SQL text.
public protocol PostgresEncodable: Sendable {
    /// The parameter, or nil for SQL NULL.
    var postgresParameter: PostgresParameter? { get }
}

extension String: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: self) }
}

extension Substring: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Int: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Int64: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Int32: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Double: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Bool: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: self ? "t" : "f") }
}

extension UUID: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: uuidString) }
}

extension Date: PostgresEncodable {
    /// Sent as ISO 8601 with microseconds in UTC, which `timestamptz` parses losslessly.
    public var postgresParameter: PostgresParameter? {
        PostgresParameter(text: PostgresTimestamp.format(self))
    }
}

extension Data: PostgresEncodable {
    /// `bytea` travels in binary format, so no escaping is involved.
    public var postgresParameter: PostgresParameter? { PostgresParameter(binary: Array(self)) }
}

extension Array: PostgresEncodable where Element == UInt8 {
    public var postgresParameter: PostgresParameter? { PostgresParameter(binary: self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresParameter: PostgresParameter? { self?.postgresParameter }
}

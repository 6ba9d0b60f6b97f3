import Foundation

/// One bound parameter as libpq takes it: the bytes and whether they are text (0) or binary (1).
public struct PostgresParameter: Sendable {
    /// The value, in the format `isBinary` says.
    public var bytes: [UInt8]
    /// libpq's `paramFormats` entry: false for text (0), true for binary (1).
    public var isBinary: Bool

    /// A text-format parameter: the server parses it as the parameter's SQL type.
    public init(text: String) {
        self.bytes = Array(text.utf8)
        self.isBinary = false
    }

    /// A binary-format parameter: raw bytes, used for `bytea`.
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
    /// Sent as text, unchanged.
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: self) }
}

extension Substring: PostgresEncodable {
    /// Sent as text, like `String`.
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Int: PostgresEncodable {
    /// Sent as decimal text.
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Int64: PostgresEncodable {
    /// Sent as decimal text.
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Int32: PostgresEncodable {
    /// Sent as decimal text.
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Double: PostgresEncodable {
    /// Sent as Swift's shortest decimal text that round-trips.
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: String(self)) }
}

extension Bool: PostgresEncodable {
    /// Sent as `t` or `f`, PostgreSQL's own boolean text.
    public var postgresParameter: PostgresParameter? { PostgresParameter(text: self ? "t" : "f") }
}

extension UUID: PostgresEncodable {
    /// Sent as the hyphenated text `uuid` parses.
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
    /// Raw bytes for `bytea`, in binary format like `Data`.
    public var postgresParameter: PostgresParameter? { PostgresParameter(binary: self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// nil is SQL NULL; a value is sent as itself.
    public var postgresParameter: PostgresParameter? { self?.postgresParameter }
}

import Foundation

/// A Swift value that can be read from a result column. Results arrive in libpq's text format;
/// each type parses the server's canonical text output for its SQL type.
public protocol PostgresDecodable: Sendable {
    /// Parses the column's text, or throws `PostgresError.decoding`.
    init(postgresText text: String) throws
}

extension String: PostgresDecodable {
    /// The text as is.
    public init(postgresText text: String) { self = text }
}

extension PostgresDecodable where Self: FixedWidthInteger {
    /// Decimal text of an integer column; throws when it does not fit this type.
    public init(postgresText text: String) throws {
        guard let value = Self(text) else { throw PostgresError.decoding("'\(text)' is not an integer of this width") }
        self = value
    }
}

/// `int8`, and any smaller integer column.
extension Int: PostgresDecodable {}

/// `int8`, and any smaller integer column.
extension Int64: PostgresDecodable {}

/// `int4`, `int2`.
extension Int32: PostgresDecodable {}

extension Double: PostgresDecodable {
    /// Decimal text of a floating-point or `numeric` column.
    public init(postgresText text: String) throws {
        guard let value = Double(text) else { throw PostgresError.decoding("'\(text)' is not a number") }
        self = value
    }
}

extension Bool: PostgresDecodable {
    /// `t` or `f`, as the server writes `boolean`.
    public init(postgresText text: String) throws {
        switch text {
        case "t": self = true
        case "f": self = false
        default: throw PostgresError.decoding("'\(text)' is not a boolean")
        }
    }
}

extension UUID: PostgresDecodable {
    /// The server's hyphenated `uuid` text (`PostgresUUID`).
    public init(postgresText text: String) throws {
        guard let value = PostgresUUID.parse(text) else { throw PostgresError.decoding("not a uuid") }
        self = value
    }
}

extension Date: PostgresDecodable {
    /// `timestamptz` text in the ISO `DateStyle` and UTC zone every connection sets.
    public init(postgresText text: String) throws {
        guard let value = PostgresTimestamp.parse(text) else {
            throw PostgresError.decoding("'\(text)' is not a timestamptz")
        }
        self = value
    }
}

extension Data: PostgresDecodable {
    /// `bytea` in the server's default `hex` output format: `\x` followed by hex digits.
    public init(postgresText text: String) throws {
        self = Data(try PostgresHex.decodeBytea(text))
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// `bytea` in hex output format, like `Data`.
    public init(postgresText text: String) throws {
        self = try PostgresHex.decodeBytea(text)
    }
}

/// Decodes `bytea_output = hex` text.
enum PostgresHex {
    static func decodeBytea(_ text: String) throws -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"),
              utf8.count % 2 == 0
        else { throw PostgresError.decoding("bytea is not in hex format") }
        var bytes = [UInt8]()
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else {
                throw PostgresError.decoding("bytea has a non-hex digit")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// One hex digit's value, either case.
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

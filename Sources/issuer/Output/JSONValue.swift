import Foundation

/// A JSON document (RFC 8259) built by hand, so that each command's `--output json` has a fixed
/// shape: every documented member is present, with `null` when it has no value (a synthesized
/// `Encodable` would leave absent optionals out, and scripts would see members come and go).
enum JSONValue: Sendable, Equatable {
    case string(String)
    case number(Int)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    /// An optional string, `null` when absent.
    static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// An instant as RFC 3339 UTC (`2025-01-31T12:00:00Z`), `null` when absent.
    static func date(_ value: Date?) -> JSONValue { value.map { .string($0.ISO8601Format()) } ?? .null }

    static func bool(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }

    /// Sorted keys and no insignificant whitespace: one line, the same bytes for the same answer.
    /// JSON escapes control characters, so a client-supplied value cannot drive a terminal here either.
    var serialized: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a tree of strings, numbers and booleans cannot fail.
        return String(decoding: (try? encoder.encode(self)) ?? Data("null".utf8), as: UTF8.self)
    }

    /// Prints the document as the command's only output on stdout.
    func print() {
        Swift.print(serialized)
    }
}

extension JSONValue: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

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
    /// Every control-like scalar is a `\uXXXX` escape (RFC 8259 §7), not only the C0 controls JSON
    /// requires: DEL, C1 and bidirectional overrides too, so that a value a provider sent (an
    /// e-mail claim) can drive neither a terminal nor the order in which it shows text.
    var serialized: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a tree of strings, numbers and booleans cannot fail.
        let json = String(decoding: (try? encoder.encode(self)) ?? Data("null".utf8), as: UTF8.self)
        guard json.unicodeScalars.contains(where: \.isControlLike) else { return json }
        // Outside strings a document has only ASCII structure, and the encoder escaped C0 already:
        // whatever is left is inside a string, where an escape means the same scalar.
        var escaped = ""
        for scalar in json.unicodeScalars {
            if scalar.isControlLike {
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
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

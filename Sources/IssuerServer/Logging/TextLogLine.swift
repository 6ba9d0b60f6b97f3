import Foundation
import IssuerCore
import Logging

/// `ISSUER_LOG_FORMAT=text`: the handler writing ``TextLogLine``s.
public typealias TextLogHandler = LineLogHandler<TextLogLine>

/// `ISSUER_LOG_FORMAT=text`: one line per event, `timestamp level label: message key=value …`,
/// the values in logfmt.
///
/// Metadata often carries what a client sent (a user agent, a name, Apple's `error` field), so
/// no value may forge anything (docs/reference.md, "Logs"): control characters are escaped, so a
/// newline cannot start a forged line and an escape sequence cannot drive the reader's terminal;
/// and a value that is not plain printable ASCII without spaces, quotes, `=` or `\` is quoted,
/// with `"` and `\` escaped inside, so `x client_id=admin level=critical` stays one value.
/// (swift-log's `StreamLogHandler` writes values verbatim.)
public enum TextLogLine: LogLineFormat {
    /// One escaped line; metadata sorted by key, so lines diff well.
    public static func line(_ event: LogEvent, label: String, metadata merged: Logger.Metadata) -> String? {
        var line = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
        line += " \(event.level.rawValue) \(label): \(event.message.description.escapingControlCharacters)"
        for key in merged.keys.sorted() {
            line += " \(Self.key(key))=\(Self.quoted(Self.text(merged[key]!)))"
        }
        return line
    }

    /// The value as text, unescaped: quoting escapes it once, whole.
    private static func text(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): return string
        case .stringConvertible(let convertible): return convertible.description
        case .array(let array): return "[" + array.map(text).joined(separator: ", ") + "]"
        case .dictionary(let dictionary):
            return "[" + dictionary.keys.sorted().map { "\($0): \(text(dictionary[$0]!))" }.joined(separator: ", ") + "]"
        }
    }

    /// Whether `text` can be written bare: printable ASCII with no space, `"`, `=` or `\`.
    static func isBare(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            (0x21...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "=" && scalar != "\\"
        }
    }

    /// A logfmt value: bare when safe, else quoted with `\` and `"` escaped and control
    /// characters written as `\u{XX}`, scalar by scalar: String's own replacing works on
    /// characters, and a `"` followed by a combining mark is one character that it would miss.
    static func quoted(_ text: String) -> String {
        guard !isBare(text) else { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            default:
                if String(scalar).containsControlCharacters {
                    quoted += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }

    /// A key is ours, but is kept to logfmt's key characters all the same.
    private static func key(_ key: String) -> String {
        isBare(key) ? key : String(key.unicodeScalars.map { isBare(String($0)) ? Character($0) : "_" })
    }
}

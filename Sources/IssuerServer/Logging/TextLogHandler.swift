import Foundation
import IssuerCore
import Logging

/// `ISSUER_LOG_FORMAT=text`: one line per event, `timestamp level label: message key=value …`.
///
/// SPEC §7: metadata often carries what a client sent (a user agent, a name, a parameter), so the
/// message and every value are written with control characters escaped: a value holding a
/// newline cannot start a forged line, and an escape sequence cannot drive the reader's terminal.
/// (swift-log's `StreamLogHandler` writes values verbatim.)
public struct TextLogHandler: LineLogHandler {
    /// swift-log `LogHandler`: metadata on every line; a line's own metadata wins a conflict.
    public var metadata: Logger.Metadata = [:]
    /// swift-log `LogHandler`: the lowest level written.
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable (String) -> Void

    /// A handler writing each finished line (newline included) to `write`.
    public init(label: String, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.write = write
    }

    /// Writes one escaped line; metadata sorted by key, so lines diff well.
    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        var line = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
        line += " \(event.level.rawValue) \(label): \(event.message.description.escapingControlCharacters)"
        for key in merged.keys.sorted() {
            line += " \(key.escapingControlCharacters)=\(Self.text(merged[key]!))"
        }
        write(line + "\n")
    }

    private static func text(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): return string.escapingControlCharacters
        case .stringConvertible(let convertible): return convertible.description.escapingControlCharacters
        case .array(let array): return "[" + array.map(text).joined(separator: ", ") + "]"
        case .dictionary(let dictionary):
            return "[" + dictionary.keys.sorted().map { "\($0.escapingControlCharacters): \(text(dictionary[$0]!))" }
                .joined(separator: ", ") + "]"
        }
    }
}

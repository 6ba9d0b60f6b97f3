import Foundation
import Logging

/// `ISSUER_LOG_FORMAT=json`: one JSON object per line, for log shippers. Keys: `timestamp`
/// (RFC 3339, UTC), `level`, `label`, `message`, then the metadata (request id included).
public struct JSONLogHandler: LineLogHandler {
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

    /// Writes one line; metadata never overrides `timestamp`, `level`, `label` or `message`.
    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "timestamp": Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date()),
            "level": event.level.rawValue,
            "label": label,
            "message": event.message.description,
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in merged where object[key] == nil {
            object[key] = Self.jsonValue(value)
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return
        }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    private static func jsonValue(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): return string
        case .stringConvertible(let convertible): return convertible.description
        case .array(let array): return array.map(jsonValue)
        case .dictionary(let dictionary): return dictionary.mapValues(jsonValue)
        }
    }
}

import Foundation
import Logging

/// `ISSUER_LOG_FORMAT=json`: the handler writing ``JSONLogLine``s.
public typealias JSONLogHandler = LineLogHandler<JSONLogLine>

/// `ISSUER_LOG_FORMAT=json`: one JSON object per line, for log shippers. Keys: `timestamp`
/// (RFC 3339, UTC), `level`, `label`, `message`, then the metadata (request id included).
public enum JSONLogLine: LogLineFormat {
    /// One object; metadata never overrides `timestamp`, `level`, `label` or `message`.
    public static func line(_ event: LogEvent, label: String, metadata merged: Logger.Metadata) -> String? {
        var object: [String: Any] = [
            "timestamp": Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date()),
            "level": event.level.rawValue,
            "label": label,
            "message": event.message.description,
        ]
        for (key, value) in merged where object[key] == nil {
            object[key] = Self.jsonValue(value)
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
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

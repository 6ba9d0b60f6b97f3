import Foundation
import Logging

/// How one of the issuer's log formats writes an event: one finished line (`ISSUER_LOG_FORMAT`,
/// docs/reference.md, "Logs").
public protocol LogLineFormat: Sendable {
    /// The line for `event`, without its newline, with `metadata` already merged (the line's own
    /// winning a conflict); `nil` writes nothing.
    static func line(_ event: LogEvent, label: String, metadata: Logger.Metadata) -> String?
}

/// A swift-log handler writing one finished line per event in `Format`, handed to a writer
/// (standard error in production, a buffer in tests): what the formats share is here once, swift-log's
/// metadata plumbing included.
public struct LineLogHandler<Format: LogLineFormat>: LogHandler {
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

    /// A handler writing to standard error.
    public init(label: String) {
        self.init(label: label) { line in
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// swift-log `LogHandler`: one entry of the handler's metadata.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the event's line, if its format makes one.
    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        guard let line = Format.line(event, label: label, metadata: merged) else { return }
        write(line + "\n")
    }
}

import Foundation
import Logging

/// What the issuer's two log formats share: one finished line per event, handed to a writer
/// (standard error in production, a buffer in tests), and swift-log's metadata plumbing.
public protocol LineLogHandler: LogHandler {
    /// A handler writing each finished line (newline included) to `write`.
    init(label: String, write: @escaping @Sendable (String) -> Void)
}

extension LineLogHandler {
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
}

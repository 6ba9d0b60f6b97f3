import Foundation

/// Where the server secret is kept when none is configured (docs/reference.md, "Configuration").
public protocol ServerSecretStoring: Sendable {
    /// The kept secret; `candidate` becomes it when none is kept yet.
    func secret(offering candidate: [UInt8]) async throws -> [UInt8]
}

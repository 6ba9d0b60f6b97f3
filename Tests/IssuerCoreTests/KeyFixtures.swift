import Foundation
import IssuerCore
import Testing

/// Fixtures of the key and token suites that only they use; keys, directories and tools shared
/// with other targets are in TestSupport (`TestRSAKeys`, `TestDirectories`, `CommandLineTool`).
enum KeyFixtures {
    /// The docs/reference.md, "Configuration" defaults: 3600 s tokens, 5 s reload; a retired key is published for 3965 s.
    static let policy = KeyRotationPolicy(longestTokenLifetime: .seconds(3600), reloadInterval: .seconds(5))

    /// Reads `ring.json` as loose JSON, for tests that corrupt it on purpose.
    static func stateJSON(in directory: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent("ring.json"))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func writeStateJSON(_ object: [String: Any], in directory: URL) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try data.write(to: directory.appendingPathComponent("ring.json"))
    }
}

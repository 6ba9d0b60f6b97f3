import Foundation
import IssuerCore
import TestSupport

/// A clients file (docs/reference.md, "Configuration": `ISSUER_CLIENTS_FILE`) written from `json`
/// and loaded as the issuer loads it.
enum ClientsFile {
    static func load(_ json: String) throws -> ClientRegistry {
        let file = TestDirectories.make("clients.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try json.write(to: file, atomically: true, encoding: .utf8)
        return try ClientRegistry(contentsOf: file)
    }
}

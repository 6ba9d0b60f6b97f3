import Foundation
import IssuerCore
import Postgres

/// The issuer's schema migrations: built into the binary from `migrations/*.sql`, or read from
/// `ISSUER_MIGRATIONS_DIR` when the operator overrides them.
public enum IssuerMigrations {
    /// The migrations compiled into this binary.
    public static func builtIn() throws -> [Migration] {
        try Migration.ordered(EmbeddedMigrations.files.map { file in
            guard let data = Data(base64Encoded: file.base64) else { throw MigrationError.unreadable(file.name) }
            return try Migration(fileName: file.name, sql: String(decoding: data, as: UTF8.self))
        })
    }

    /// The migrations in `ISSUER_MIGRATIONS_DIR` when it is set, else the built-in ones (docs/reference.md, "Configuration").
    public static func selected(directory: URL?) throws -> [Migration] {
        if let directory {
            return try Migration.load(directory: directory)
        }
        return try builtIn()
    }
}

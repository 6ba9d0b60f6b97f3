import Crypto
import Foundation

/// One numbered schema change: a plain SQL file named `NNNN_description.sql`.
public struct Migration: Sendable, Equatable {
    /// The number that orders migrations; unique.
    public let version: Int
    /// The file name without its number and extension, for humans.
    public let name: String
    /// The SQL text, run in one transaction.
    public let sql: String

    /// SHA-256 of the SQL text, hex: what `schema_migrations` records to detect an edited file.
    public var checksum: String {
        SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Unchecked; `init(fileName:sql:)` parses a file name, and `ordered(_:)` refuses duplicates.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// `0001_create_users`: how operators see it.
    public var fileStem: String {
        let number = String(version)
        return String(repeating: "0", count: max(0, 4 - number.count)) + number + (name.isEmpty ? "" : "_\(name)")
    }

    /// Parses `0001_create_users.sql` into version 1, name `create_users`.
    public init(fileName: String, sql: String) throws {
        guard fileName.hasSuffix(".sql") else { throw MigrationError.badFileName(fileName) }
        let stem = fileName.dropLast(4)
        let digits = stem.prefix(while: \.isNumber)
        guard !digits.isEmpty, let version = Int(digits) else { throw MigrationError.badFileName(fileName) }
        var rest = stem.dropFirst(digits.count)
        if rest.first == "_" { rest = rest.dropFirst() }
        self.init(version: version, name: String(rest), sql: sql)
    }

    /// Reads every `*.sql` file of a directory, ordered by version.
    public static func load(directory: URL) throws -> [Migration] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError.unreadable(directory.path)
        }
        let migrations = try files.filter { $0.hasSuffix(".sql") }.map { file in
            let url = directory.appendingPathComponent(file)
            guard let sql = try? String(contentsOf: url, encoding: .utf8) else {
                throw MigrationError.unreadable(url.path)
            }
            return try Migration(fileName: file, sql: sql)
        }
        return try ordered(migrations)
    }

    /// Sorts by version and refuses two files with the same number.
    public static func ordered(_ migrations: [Migration]) throws -> [Migration] {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.version == b.version {
            throw MigrationError.duplicateVersion(a.version)
        }
        return sorted
    }
}

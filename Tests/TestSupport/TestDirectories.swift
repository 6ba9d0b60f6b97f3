import Foundation
import Postgres

/// Temporary directories for tests, named after the test process so that clusters left behind
/// by a killed run can be recognised and cleaned up by the next one.
public enum TestDirectories {
    static let prefix = "issuer-test-"

    /// A new directory `/tmp/issuer-test-<pid>-<random>/<name>` (the parent is 0755 so the
    /// `postgres` OS user can reach a cluster inside it when tests run as root).
    public static func make(_ name: String) -> URL {
        let parent = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        chmod(parent.path, 0o755)
        return parent.appendingPathComponent(name, isDirectory: true)
    }

    /// Runs `body` with a new, empty directory `name` (made as ``make(_:)`` makes one) and removes
    /// it with its parent afterwards, whether `body` returns or throws.
    public static func withTemporary<Result>(_ name: String = "scratch", _ body: (URL) throws -> Result) throws -> Result {
        let directory = try created(name)
        defer { remove(directory) }
        return try body(directory)
    }

    /// The async form of ``withTemporary(_:_:)``.
    public static func withTemporary<Result>(
        _ name: String = "scratch", isolation: isolated (any Actor)? = #isolation, _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let directory = try created(name)
        defer { remove(directory) }
        return try await body(directory)
    }

    /// A new directory from ``make(_:)``, created on disk.
    public static func created(_ name: String) throws -> URL {
        let directory = make(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Removes a directory from ``make(_:)`` or ``created(_:)`` together with its per-call parent.
    public static func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }

    /// Stops and deletes clusters of test processes that no longer run.
    static func removeStaleClusters() {
        let temporary = FileManager.default.temporaryDirectory
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for entry in entries where entry.hasPrefix(prefix) {
            let pidText = entry.dropFirst(prefix.count).prefix(while: \.isNumber)
            guard let pid = Int32(pidText), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let directory = temporary.appendingPathComponent(entry)
            for child in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
                let cluster = directory.appendingPathComponent(child)
                if FileManager.default.fileExists(atPath: cluster.appendingPathComponent("postmaster.pid").path) {
                    try? EmbeddedPostgres(directory: cluster).forceStop()
                }
            }
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

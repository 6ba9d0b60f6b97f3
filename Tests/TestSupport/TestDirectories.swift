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

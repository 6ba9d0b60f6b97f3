import Foundation

/// Where the system's PostgreSQL server programs are.
struct PostgresBinaries {
    let initdb: String
    let pgCtl: String
    let psql: String

    /// `pg_config --bindir` first (it names the installed server's own directory), then the
    /// newest `/usr/lib/postgresql/*/bin` (Debian keeps server binaries off `PATH`).
    static func locate() throws -> PostgresBinaries {
        var candidates: [String] = []
        for pgConfig in ["/usr/bin/pg_config", "/usr/local/bin/pg_config"] where FileManager.default.isExecutableFile(atPath: pgConfig) {
            if let output = try? CommandRunner.run([pgConfig, "--bindir"]), output.status == 0 {
                candidates.append(output.output.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        candidates += versions.compactMap(Int.init).sorted(by: >).map { "\(root)/\($0)/bin" }
        for directory in candidates {
            let binaries = PostgresBinaries(initdb: "\(directory)/initdb", pgCtl: "\(directory)/pg_ctl", psql: "\(directory)/psql")
            if [binaries.initdb, binaries.pgCtl, binaries.psql].allSatisfy(FileManager.default.isExecutableFile(atPath:)) {
                return binaries
            }
        }
        throw EmbeddedPostgresError.serverNotInstalled
    }
}

import ArgumentParser
import Foundation
import IssuerCore
import IssuerStorage

/// `issuer-bench rotation-script`: the refresh rotation statement alone, for pgbench, so that
/// `scripts/bench` can measure what the database costs a refresh without the issuer in the way —
/// one term of its composite floor (Benchmarks/README.md).
///
/// Writes two files: `setup.sql` gives each of `--clients` pgbench clients the head of a chain in
/// a session that already exists (signed in by the run before), and `rotate.sql` rotates the
/// client's chain one step per transaction with `RefreshRotationStore.rotateStatement` itself,
/// its parameters filled in the way the grant fills them. Chain `c`'s token `n` has the hash
/// SHA-256("<tag>-c-n"), so a client needs to remember only `n` (pgbench keeps it between
/// transactions; start it with `-D n=0`). Each run takes a new `--tag`, so its chains are new.
struct RotationScriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotation-script",
        abstract: "Write setup.sql and rotate.sql: the refresh rotation statement alone, for pgbench.")

    @Option(help: "The directory to write the two files to.")
    var out: String

    @Option(help: "pgbench clients (-c): one chain each, each in its own session.")
    var clients = 8

    @Option(help: "What the chains' token hashes are derived from: a new one for every run.")
    var tag = "bench"

    @Option(help: "The client the sessions were signed in for.")
    var clientId = "clanboards-mobile"

    func validate() throws {
        guard clients > 0 else { throw ValidationError("--clients must be positive") }
        guard (clientId + tag).allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
            throw ValidationError("--client-id and --tag may hold letters, digits, '-', '.' and '_' only")
        }
    }

    func run() throws {
        let directory = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let hash = { (step: String) in "sha256(convert_to('\(tag)-' || :client_id || '-' || \(step), 'UTF8'))" }
        // The grant's parameters: presented hash, now, successor hash, client, successor expiry, scope,
        // and the DPoP key and proof (none).
        let values = [
            1: hash(":n"), 2: "now()", 3: hash(":next"), 4: "'\(clientId)'",
            5: "(now() + interval '30 days')", 6: "NULL", 7: "NULL", 8: "NULL", 9: "NULL", 10: "NULL", 11: "NULL",
        ]
        var statement = RefreshRotationStore.rotateStatement
        // $11 before $1, or $1 would take the front of $11.
        for (number, value) in values.sorted(by: { $0.key > $1.key }) {
            statement = statement.replacingOccurrences(of: "$\(number)", with: value)
        }
        // pgbench reads one SQL command per line unless it ends in a semicolon.
        let oneLine = statement.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        let rotate = """
            \\set next :n + 1
            \(oneLine);
            \\set n :next

            """
        let setup = """
            INSERT INTO refresh_tokens (token_hash, session_id, parent_hash, generation, created_at, expires_at)
            SELECT sha256(convert_to('\(tag)-' || c || '-0', 'UTF8')), s.id, NULL, 0, now(), s.expires_at
            FROM generate_series(0, \(clients - 1)) AS c
            JOIN LATERAL (
                SELECT id, expires_at FROM sessions
                WHERE client_id = '\(clientId)' AND revoked_at IS NULL AND expires_at > now() + interval '1 hour'
                ORDER BY id OFFSET c LIMIT 1
            ) s ON true;

            """
        try rotate.write(to: directory.appendingPathComponent("rotate.sql"), atomically: true, encoding: .utf8)
        try setup.write(to: directory.appendingPathComponent("setup.sql"), atomically: true, encoding: .utf8)
        print("wrote setup.sql and rotate.sql for \(clients) chains to \(out)")
    }
}

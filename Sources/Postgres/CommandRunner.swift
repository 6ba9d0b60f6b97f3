import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs an external program to completion and captures what it printed. Used only for the
/// PostgreSQL server binaries, at start and stop, never on a request path.
///
/// Built on `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose Linux
/// termination monitoring was seen to miss a child's exit (a zombie `runuser`, a caller waiting
/// forever). Output goes to temporary files, not pipes: `pg_ctl start` leaves a server running
/// that must not hold our end of anything open.
///
/// A program run as another user starts in `/`, not in the caller's directory: run as `postgres`
/// from a root-only directory (a clone in `/root`), `psql` warns that it cannot enter it
/// (`env --chdir`, since Swift cannot import glibc's `posix_spawn_file_actions_addchdir_np`).
/// And standard error is kept apart from standard output, so such a warning never reaches the
/// text a caller parses.
struct CommandRunner {
    struct Output {
        var status: Int32
        /// What the program wrote to standard output.
        var output: String
        /// What it wrote to standard error.
        var errors: String

        /// Both streams, for an operator reading why a command failed.
        var diagnostics: String {
            [errors, output].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }.joined(separator: "\n")
        }
    }

    /// Runs `arguments[0]` (an absolute path) as the current user, or as `user` through
    /// `runuser` when we are root, because `initdb` and `postgres` refuse to run as root.
    static func run(_ arguments: [String], as user: String? = nil) throws -> Output {
        let argv = user.map { ["/usr/sbin/runuser", "-u", $0, "--", "/usr/bin/env", "--chdir=/"] + arguments } ?? arguments
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("issuer-cmd-\(UUID().uuidString)").path
        let outputPath = base + ".out", errorPath = base + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw EmbeddedPostgresError.commandFailed(argv[0], String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw EmbeddedPostgresError.commandFailed(argv[0], "waitpid failed") }
        }
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(
            status: exitStatus,
            output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }
}

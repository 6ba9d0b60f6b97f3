import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs an external program to completion and captures what it printed. Used only for the
/// PostgreSQL server binaries, at start and stop, never on a request path.
///
/// Built on `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose Linux
/// termination monitoring was seen to miss a child's exit (a zombie `runuser`, a caller waiting
/// forever). Output goes to a temporary file, not a pipe: `pg_ctl start` leaves a server running
/// that must not hold our end of anything open.
struct CommandRunner {
    struct Output {
        var status: Int32
        var output: String
    }

    /// Runs `arguments[0]` (an absolute path) as the current user, or as `user` through
    /// `runuser` when we are root, because `initdb` and `postgres` refuse to run as root.
    static func run(_ arguments: [String], as user: String? = nil) throws -> Output {
        let argv = user.map { ["/usr/sbin/runuser", "-u", $0, "--"] + arguments } ?? arguments
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("issuer-cmd-\(UUID().uuidString).log").path
        defer { unlink(outputPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

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
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(status: exitStatus, output: output)
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program the end-to-end tests start (the built `issuer` binary), with its output in a file
/// and signals and exit status under the test's control. posix_spawn, not Foundation's
/// `Process`, whose exit monitoring on Linux is unreliable.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    public let outputFile: URL

    /// Starts `executable` with `arguments` in `directory`, with exactly `environment`.
    public init(executable: String, arguments: [String], environment: [String: String], directory: URL) throws {
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("issuer-child-\(UUID().uuidString).log")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // coreutils `env --chdir` sets the working directory: glibc's addchdir_np is not
        // visible to Swift.
        let argv = (["/usr/bin/env", "--chdir=\(directory.path)", executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, envp)
        guard result == 0 else { throw ChildProcessError.spawnFailed(String(cString: strerror(result))) }
        self.pid = pid
    }

    /// The output file goes with the last reference to the process (tests kill the program in a
    /// `defer`, and may still read its output after killing it).
    deinit {
        try? FileManager.default.removeItem(at: outputFile)
    }

    /// What the program printed so far (stdout and stderr together).
    public var output: String {
        (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
    }

    public func signal(_ signal: Int32) {
        Glibc.kill(pid, signal)
    }

    /// The exit status (128 + signal when killed), or nil if it has not exited within `timeout`.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exitStatus() { return status }
            try? await Task.sleep(for: .milliseconds(50))
        }
        // One last look: on a loaded machine this task may resume only after the deadline, and a
        // program that has exited by then did not hang, which is what the timeout guards against.
        return exitStatus()
    }

    /// The exit status if the program has exited (and is reaped now), else nil.
    private func exitStatus() -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Kills the program if it still runs (test clean-up).
    public func kill() {
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

/// Whether process `pid` runs: exists and is not a zombie (in a container, PID 1 may never reap
/// an orphaned server, so `kill(pid, 0)` alone would say a stopped server still lives).
public func processIsRunning(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")")
    else { return false }
    let state = stat[stat.index(close, offsetBy: 2)]
    return state != "Z" && state != "X"
}

public enum ChildProcessError: Error {
    case spawnFailed(String)
}

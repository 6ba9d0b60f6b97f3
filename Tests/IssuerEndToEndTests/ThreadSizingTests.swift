import Foundation
import Testing
import TestSupport

/// Issue 12: a process's thread pools follow the cores it may use, not the host's. Under
/// `taskset -c 0` the server runs one event loop (NIO names them NIO-SGLTN-…), however many cores
/// the machine has.
@Suite("issuer serve sizes its threads to its cores, end to end")
struct ThreadSizingTests {
    /// The names of the threads of `pid`, as the kernel reports them.
    static func threadNames(_ pid: pid_t) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test("given one core by affinity, serve runs one NIO event loop")
    func oneCore() async throws {
        try await TestDirectories.withTemporary("one-core") { directory in
            let port = TestPorts.random()
            let server = try ChildProcess(
                executable: "/usr/bin/taskset", arguments: ["-c", "0", BuiltProducts.issuer, "serve", "--port", "\(port)"],
                environment: IssuerCommand.cleanEnvironment, directory: directory)
            defer { server.kill() }
            var ready = false
            for _ in 0..<600 where !ready {
                ready = await TestHTTP.status(port: port, path: "/readyz") == 200
                if !ready { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(ready, "never became ready: \(server.output)")
            let loops = Self.threadNames(server.pid).filter { $0.hasPrefix("NIO-SGLTN-") || $0.hasPrefix("NIO-ELT-") }
            #expect(loops.count == 1, "event loop threads: \(loops)")
            #expect(server.output.contains("cores=1"), "serve says what it sized for: \(server.output)")
            // docs/design.md, "Performance": Swift's tasks stay on its cooperative pool unless
            // ISSUER_TASK_EXECUTOR=event-loops asks otherwise.
            #expect(server.output.contains("tasks=cooperative-pool"), "serve says where its tasks run: \(server.output)")
            server.signal(SIGTERM)
            #expect(await server.waitForExit(timeout: .seconds(60)) == 0, "output: \(server.output)")
        }
    }
}

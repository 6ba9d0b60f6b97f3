import Foundation

/// The built `issuer` binary run as an operator would, from a clean environment: the test
/// process's own `ISSUER_*` settings and proxy variables never leak into the child.
public enum IssuerCommand {
    /// The test process's environment without its `ISSUER_*` settings, nor its proxy variables
    /// (docs/reference.md, "Outbound proxy"), which a test sets itself when it means to.
    public static var cleanEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("ISSUER_") && !["http_proxy", "https_proxy", "no_proxy"].contains($0.key.lowercased())
        }
    }

    /// `cleanEnvironment` with `settings` on top (a setting given here wins).
    public static func environment(_ settings: [String: String]) -> [String: String] {
        cleanEnvironment.merging(settings) { _, new in new }
    }

    /// Starts `issuer arguments` in `directory` and leaves it running (a server); the caller kills it.
    public static func start(_ arguments: [String], in directory: URL, environment settings: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(executable: BuiltProducts.issuer, arguments: arguments, environment: environment(settings), directory: directory)
    }

    /// Runs `issuer arguments` in `directory` to its exit (two minutes at most, then killed and
    /// answered with code -1); answers the exit code and stdout and stderr together.
    public static func run(_ arguments: [String], in directory: URL, environment settings: [String: String] = [:]) async throws -> (code: Int32, output: String) {
        let process = try start(arguments, in: directory, environment: settings)
        guard let code = await process.waitForExit(timeout: .seconds(120)) else {
            process.kill()
            return (-1, process.output)
        }
        return (code, process.output)
    }
}

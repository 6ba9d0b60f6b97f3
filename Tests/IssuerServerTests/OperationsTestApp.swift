import Foundation
import HummingbirdTesting
import IssuerCore
import IssuerStorage
import IssuerServer
import Logging
import Postgres
import TestSupport

/// An issuer application's dependencies on a pool the test chooses (a fresh, unmigrated
/// database or one that is unreachable), for the operations endpoints and the management port.
enum OperationsTestApp {
    /// Runs `body` against an application on `pool` in process (the router test client);
    /// closes what ``with(pool:environment:isolation:_:)`` closes.
    static func test(
        pool: ConnectionPool, environment: [String: String] = [:],
        _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await with(pool: pool, environment: environment) { dependencies in
            try await buildApplication(dependencies).test(.router, body)
        }
    }

    /// Runs `body` with dependencies on `pool` (and a key ring of their own unless `environment`
    /// names one); closes the pool and removes that key ring afterwards, whichever way `body` ended.
    static func with<Result>(
        pool: ConnectionPool, environment: [String: String] = [:],
        isolation: isolated (any Actor)? = #isolation, _ body: (IssuerDependencies) async throws -> Result
    ) async throws -> Result {
        var environment = environment
        var keysDirectory: URL?
        func cleanUp() async {
            await pool.close()
            if let keysDirectory { TestDirectories.remove(keysDirectory) }
        }
        do {
            if environment["ISSUER_KEYS_DIR"] == nil {
                let directory = try TestKeyRing.make()
                keysDirectory = directory
                environment["ISSUER_KEYS_DIR"] = directory.path
            }
            var dependencies = IssuerDependencies(
                configuration: try Configuration(environment: environment), pool: pool, logger: Logger(label: "test"),
                serverSecret: ServerSecret(bytes: Array(repeating: 1, count: 32)), clock: SystemClock())
            dependencies.requestReadTimeout = TestReadDeadline.live
            let result = try await body(dependencies)
            await cleanUp()
            return result
        } catch {
            await cleanUp()
            throw error
        }
    }
}

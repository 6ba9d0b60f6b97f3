import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import IssuerStorage
@testable import IssuerServer
import Logging
import Postgres
import Synchronization
import TestSupport

/// Runs `body` with a real issuer application of its own (`IssuerTestFixture`) and closes
/// everything the fixture opened afterwards, whether `body` returns, throws or fails a
/// `#require`: the one way tests start an in-process issuer.
func withIssuer<Result>(
    environment: [String: String] = [:], clock: ManualClock = ManualClock(Date()), database: String? = nil,
    isolation: isolated (any Actor)? = #isolation, _ body: (IssuerTestFixture) async throws -> Result
) async throws -> Result {
    try await IssuerTestFixture.open(environment: environment, clock: clock, database: database).closing(body)
}

/// A real issuer application for in-process tests: a fresh migrated database, a key ring on
/// disk, and a fake Apple whose keys the application fetches through a stub. Made only through
/// `withIssuer` (or `withSharing` for a second process), which close it.
struct IssuerTestFixture {
    /// For the test's own queries; every application gets a pool of its own (`dependencies`).
    let pool: ConnectionPool
    let conninfo: String
    let apple: FakeAppleKeys
    let appleFetcher: StubJWKSFetcher
    let configuration: Configuration
    let keysDirectory: URL
    let metrics = ServerMetrics()
    /// The application's clock; tests move it to cross grace windows and expiries.
    let clock: ManualClock
    /// Every pool handed out through `dependencies`, closed with the fixture.
    private let opened = OpenedPools()
    /// Whether closing removes `keysDirectory` (the first process's; a sharing one borrows it).
    private let ownsKeys: Bool

    static let bundleID = "com.example.app"
    /// Each pool call's deadline (and statement timeout): it only ends a hung call, and a test
    /// starved by the hundreds beside it must not fail as if the database had not answered. The
    /// deadline tests bring pools of their own.
    static let poolTimeout: Duration = .seconds(60)

    /// Makes the parts in an order where a failure leaves nothing open behind.
    /// `database`: a database of the test's own (already written to), else a fresh one.
    fileprivate static func open(environment: [String: String], clock: ManualClock, database: String?) async throws -> IssuerTestFixture {
        let conninfo: String
        if let database { conninfo = database } else { conninfo = try await TestCluster.freshDatabase() }
        let keysDirectory = try TestKeyRing.make()
        var environment = environment
        environment["ISSUER_KEYS_DIR"] = environment["ISSUER_KEYS_DIR"] ?? keysDirectory.path
        environment["ISSUER_APPLE_CLIENT_IDS"] = environment["ISSUER_APPLE_CLIENT_IDS"] ?? Self.bundleID
        let pool = ConnectionPool(conninfo: conninfo, size: 2, timeout: Self.poolTimeout)
        do {
            let configuration = try Configuration(environment: environment)
            try await Migrator(pool: pool).migrate(try IssuerMigrations.builtIn())
            let apple = try FakeAppleKeys(clock: clock)
            return IssuerTestFixture(
                pool: pool, conninfo: conninfo, apple: apple, appleFetcher: StubJWKSFetcher(serving: apple),
                configuration: configuration, keysDirectory: keysDirectory, clock: clock, ownsKeys: true)
        } catch {
            await pool.close()
            TestDirectories.remove(keysDirectory)
            throw error
        }
    }

    private init(
        pool: ConnectionPool, conninfo: String, apple: FakeAppleKeys, appleFetcher: StubJWKSFetcher,
        configuration: Configuration, keysDirectory: URL, clock: ManualClock, ownsKeys: Bool
    ) {
        self.pool = pool
        self.conninfo = conninfo
        self.apple = apple
        self.appleFetcher = appleFetcher
        self.configuration = configuration
        self.keysDirectory = keysDirectory
        self.clock = clock
        self.ownsKeys = ownsKeys
    }

    /// Runs `body` with a second "process": its own application, pools and caches, on the same
    /// database, key ring, server secret and clock; closes what it opened afterwards.
    func withSharing<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (IssuerTestFixture) async throws -> Result
    ) async throws -> Result {
        let second = IssuerTestFixture(
            pool: ConnectionPool(conninfo: conninfo, size: 1, timeout: Self.poolTimeout), conninfo: conninfo, apple: apple,
            appleFetcher: StubJWKSFetcher(serving: apple), configuration: configuration, keysDirectory: keysDirectory,
            clock: clock, ownsKeys: false)
        return try await second.closing(body)
    }

    /// Runs `body`, then closes the fixture whichever way `body` ended. (An async close cannot
    /// sit in a `defer`, hence the two paths.)
    fileprivate func closing<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (IssuerTestFixture) async throws -> Result
    ) async throws -> Result {
        let result: Result
        do {
            result = try await body(self)
        } catch {
            await close()
            throw error
        }
        await close()
        return result
    }

    /// A fresh set of application dependencies with a pool of its own, closed with the fixture
    /// (if the application has not closed it already).
    var dependencies: IssuerDependencies {
        var dependencies = IssuerDependencies(
            configuration: configuration, pool: opened.track(ConnectionPool(conninfo: conninfo, size: 4, timeout: Self.poolTimeout)),
            logger: Logger(label: "test"), serverSecret: ServerSecret(bytes: Array(repeating: 42, count: 32)),
            metrics: metrics, clock: clock, jwksFetcher: appleFetcher)
        dependencies.requestReadTimeout = TestReadDeadline.live
        return dependencies
    }

    /// Runs `body` against the application in process.
    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = buildApplication(dependencies)
        try await app.test(.router, body)
    }

    /// A clients file with the default client and `other-app`, for tests of client binding.
    static func twoClientsFile() throws -> URL {
        let file = TestDirectories.make("clients.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try #"[{"client_id":"clanboards-mobile","redirect_uris":["clanboards://cb"],"scopes":["openid","email","profile"]},{"client_id":"other-app","redirect_uris":["other://cb"],"scopes":["openid"]}]"#
            .write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func count(_ table: String) async throws -> Int {
        try await pool.query("SELECT count(*) AS count FROM \(table)").single!.decode(Int.self, column: "count")
    }

    /// The ring on disk, as the server loaded it.
    func ring() throws -> KeyRing {
        try KeyRingDirectory(directory: keysDirectory).load()
    }

    /// Closes the test's pool and every application pool, and removes the key ring it made.
    private func close() async {
        await pool.close()
        for pool in opened.all { await pool.close() }
        if ownsKeys { TestDirectories.remove(keysDirectory) }
    }
}

/// The pools a fixture handed out, to close them with it.
private final class OpenedPools: Sendable {
    private let pools = Mutex<[ConnectionPool]>([])

    func track(_ pool: ConnectionPool) -> ConnectionPool {
        pools.withLock { $0.append(pool) }
        return pool
    }

    var all: [ConnectionPool] { pools.withLock { $0 } }
}

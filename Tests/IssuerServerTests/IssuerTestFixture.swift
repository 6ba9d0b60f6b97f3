import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Logging
import Postgres
import TestSupport

/// A real issuer application for in-process tests: a fresh migrated database, a key ring on
/// disk, and a fake Apple whose keys the application fetches through a stub.
struct IssuerTestFixture {
    /// For the test's own queries; the application gets a pool of its own, which it closes when
    /// it shuts down.
    let pool: ConnectionPool
    let conninfo: String
    let apple: FakeAppleKeys
    let appleFetcher: StubJWKSFetcher
    let configuration: Configuration
    let keysDirectory: URL
    let metrics = ServerMetrics()
    /// The application's clock; tests move it to cross grace windows and expiries.
    let clock: ManualClock

    static let bundleID = "com.example.app"

    init(environment: [String: String] = [:], clock: ManualClock = ManualClock(Date())) async throws {
        self.clock = clock
        conninfo = try await TestCluster.freshDatabase()
        pool = ConnectionPool(conninfo: conninfo, size: 2)
        try await Migrator(pool: pool).migrate(try IssuerMigrations.builtIn())
        apple = try FakeAppleKeys(clock: clock)
        appleFetcher = StubJWKSFetcher(serving: apple)
        keysDirectory = try TestKeyRing.make()
        var environment = environment
        environment["ISSUER_KEYS_DIR"] = environment["ISSUER_KEYS_DIR"] ?? keysDirectory.path
        environment["ISSUER_APPLE_CLIENT_IDS"] = environment["ISSUER_APPLE_CLIENT_IDS"] ?? Self.bundleID
        configuration = try Configuration(environment: environment)
    }

    private init(sharing other: IssuerTestFixture) {
        pool = ConnectionPool(conninfo: other.conninfo, size: 1)
        conninfo = other.conninfo
        apple = other.apple
        appleFetcher = StubJWKSFetcher(serving: other.apple)
        keysDirectory = other.keysDirectory
        configuration = other.configuration
        clock = other.clock
    }

    /// A second "process": its own application, pools and caches, on the same database, key
    /// ring, server secret and clock.
    static func sharing(_ other: IssuerTestFixture) async throws -> IssuerTestFixture {
        IssuerTestFixture(sharing: other)
    }

    var dependencies: IssuerDependencies {
        IssuerDependencies(
            configuration: configuration, pool: ConnectionPool(conninfo: conninfo, size: 4), logger: Logger(label: "test"),
            serverSecret: ServerSecret(bytes: Array(repeating: 42, count: 32)), metrics: metrics, clock: clock,
            jwksFetcher: appleFetcher)
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
        try await pool.query("SELECT count(*) FROM \(table)").single!.decode(Int.self, at: 0)
    }

    /// The ring on disk, as the server loaded it.
    func ring() throws -> KeyRing {
        try KeyRingStore(directory: keysDirectory).load()
    }

    func close() async {
        await pool.close()
    }
}

extension TestClientProtocol {
    /// POSTs a JSON object and answers the response.
    @discardableResult
    func postJSON(_ uri: String, _ object: [String: Any]) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: object)
        return try await executeRequest(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body))
    }

    /// POSTs a form and answers the response.
    @discardableResult
    func postForm(_ uri: String, _ fields: [(String, String)]) async throws -> TestResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        return try await executeRequest(
            uri: uri, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: body))
    }

    /// GETs `uri` and answers the response.
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await executeRequest(uri: uri, method: .get, headers: headers, body: nil)
    }
}

extension TestResponse {
    /// The body as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }
}

import Crypto
import Foundation
import IssuerCore
import IssuerStorage
import Postgres
import Testing
import TestSupport

@Suite("Server secret")
struct ServerSecretTests {
    @Test("generated once and shared by every process through the database")
    func generatedOnce() async throws {
        let conninfo = try await TestCluster.freshDatabase()
        try await ConnectionPool(conninfo: conninfo, size: 1).closing { setup in
            try await Migrator(pool: setup).migrate(try IssuerMigrations.builtIn())
        }
        // Several "processes" (pools) ask at once on an empty table.
        let pools = (0..<6).map { _ in ConnectionPool(conninfo: conninfo, size: 1, timeout: .seconds(60)) }
        try await ConnectionPool.closing(pools) { pools in
            let derived = try await withThrowingTaskGroup(of: Data.self) { group in
                for pool in pools {
                    group.addTask {
                        let secret = try await ServerSecret.load(configured: nil, store: ServerSecretStore(pool: pool))
                        return secret.key(for: "test").withUnsafeBytes { Data($0) }
                    }
                }
                return try await group.reduce(into: Set<Data>()) { $0.insert($1) }
            }
            #expect(derived.count == 1)
            #expect(try await pools[0].query("SELECT count(*) AS count FROM server_secret").single!.decode(Int.self, column: "count") == 1)
        }
    }

    @Test("a configured secret is used and never stored")
    func configured() async throws {
        try await TestCluster.withMigratedPool(size: 1) { pool in
            let bytes = [UInt8](repeating: 7, count: 32)
            let secret = try await ServerSecret.load(configured: Secret(bytes), store: ServerSecretStore(pool: pool))
            let expected = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: bytes), salt: Data("issuer server secret v1".utf8),
                info: Data("label".utf8), outputByteCount: 32)
            #expect(secret.key(for: "label") == expected)
            #expect(try await pool.query("SELECT count(*) AS count FROM server_secret").single!.decode(Int.self, column: "count") == 0)
        }
    }

    @Test("each label derives an unrelated key")
    func labelsSeparate() {
        let secret = ServerSecret(bytes: [UInt8](repeating: 1, count: 32))
        #expect(secret.key(for: "refresh-token-successor") != secret.key(for: "hosted-flow-state"))
        #expect(secret.key(for: "a") == secret.key(for: "a"))
    }

    @Test("the built-in migrations are the files of migrations/, in order")
    func builtInMigrations() throws {
        let builtIn = try IssuerMigrations.builtIn()
        #expect(!builtIn.isEmpty)
        #expect(builtIn.map(\.version) == builtIn.map(\.version).sorted())
        #expect(builtIn.first?.fileStem == "0001_server_secret")
        #expect(builtIn.first?.sql.contains("CREATE TABLE server_secret") == true)
    }
}

import Foundation
import IssuerCore
import JOSE
import Testing
import TestSupport

/// Shared fixtures for the key and token suites.
enum KeyFixtures {
    /// The SPEC §2 defaults: 3600 s tokens, 5 s reload; a retired key is published for 3965 s.
    static let policy = KeyRotationPolicy(longestTokenLifetime: 3600, reloadInterval: 5)

    /// RSA generation is slow; tokens tests share these keys.
    static let keyA: RSAPrivateKey = try! RSAPrivateKey.generate()
    static let keyB: RSAPrivateKey = try! RSAPrivateKey.generate()
    static let keyC: RSAPrivateKey = try! RSAPrivateKey.generate()

    /// Runs `body` with a fresh empty directory that is removed afterwards, whatever happens.
    static func withTemporaryDirectory<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("issuer-keys-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    /// The async form of ``withTemporaryDirectory(_:)``.
    static func withTemporaryDirectory<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("issuer-keys-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }

    /// Runs a command-line tool; tests use `openssl` and `sha256sum` as implementations independent of the code under test.
    static func run(_ arguments: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(arguments.joined(separator: " ")) failed")
        return output
    }

    /// Reads `ring.json` as loose JSON, for tests that corrupt it on purpose.
    static func stateJSON(in directory: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent("ring.json"))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func writeStateJSON(_ object: [String: Any], in directory: URL) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try data.write(to: directory.appendingPathComponent("ring.json"))
    }
}

import Foundation
import JOSE

/// Keys shared by tests; RSA generation is the slowest step, so each is made once per test process.
enum TestKeys {
    static let primary: RSAPrivateKey = try! RSAPrivateKey.generate()
    static let other: RSAPrivateKey = try! RSAPrivateKey.generate()
}

/// Runs the `openssl` CLI so that foreign key material comes from a tool independent of the code under test.
enum OpenSSLCLI {
    struct Failure: Error {}

    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure() }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Builds compact serializations by hand, for tokens no honest signer would produce.
enum TokenForge {
    static func token(header: String, payload: String, signature: [UInt8] = []) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
            + Base64URL.encode(signature)
    }

    /// A correctly RS256-signed token over arbitrary header and payload text.
    static func signed(header: String, payload: String, key: RSAPrivateKey) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }
}

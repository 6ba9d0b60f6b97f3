import Foundation
import JOSE
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// POSIX calls rather than FileManager: the key must be created 0600 from its first byte, and two
// commands started together (`dev apple` and `dev token`) must agree on one key, which `link`
// (fails if the name exists) decides without a lock.
extension DevSigner {
    /// The PKCS#8 PEM file of the dev key.
    public static let keyFileName = "signing-key.pem"

    static func loadOrCreateKey(in directory: URL) throws -> RSAPrivateKey {
        try loadOrCreate(keyFileName, in: directory, make: { try RSAPrivateKey.generate(bits: 2048).pemPKCS8() }) { pem in
            try? RSAPrivateKey(pemPKCS8: pem)
        }
    }

    /// The key in `name` under `directory`, parsed by `parse`; made by `make` and written 0600
    /// on first use. Two processes racing agree on the one that reached the name first.
    static func loadOrCreate<Key>(
        _ name: String, in directory: URL, make: () throws -> String, parse: (String) -> Key?
    ) throws -> Key {
        let path = directory.appendingPathComponent(name).path
        if let existing = try readKey(at: path, parse) { return existing }
        // Only the key's own directory is private: parents such as `.data` keep the default mode,
        // because the embedded PostgreSQL (run as the `postgres` user under root) lives there too.
        try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        if mkdir(directory.path, 0o700) != 0, errno != EEXIST { throw DevAppleError.io("create", directory.path, errno) }
        let pem = try make()
        guard let key = parse(pem) else { throw DevAppleError.unreadableKey(path) }
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DevAppleError.io("create", temporary, errno) }
        defer { unlink(temporary) }
        let bytes = Array(pem.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0 else { throw DevAppleError.io("write", temporary, errno) }
        if link(temporary, path) != 0 {
            guard errno == EEXIST, let winner = try readKey(at: path, parse) else { throw DevAppleError.io("link", path, errno) }
            return winner
        }
        return key
    }

    private static func readKey<Key>(at path: String, _ parse: (String) -> Key?) throws -> Key? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let key = parse(String(decoding: data, as: UTF8.self)) else { throw DevAppleError.unreadableKey(path) }
        return key
    }
}

/// Why the dev signer could not load or create its key.
public enum DevAppleError: Error, CustomStringConvertible {
    /// A file operation failed: what, on which path, and `errno`.
    case io(String, String, Int32)
    /// The key file exists but is not a key of the expected kind (PEM).
    case unreadableKey(String)

    /// One line for the operator.
    public var description: String {
        switch self {
        case .io(let operation, let path, let code): "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        case .unreadableKey(let path): "\(path) is not a private key of the kind expected (PEM); delete it to make a new dev key"
        }
    }
}

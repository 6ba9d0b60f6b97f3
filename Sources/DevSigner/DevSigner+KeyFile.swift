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
        let path = directory.appendingPathComponent(keyFileName).path
        if let existing = try readKey(at: path) { return existing }
        // Only the key's own directory is private: parents such as `.data` keep the default mode,
        // because the embedded PostgreSQL (run as the `postgres` user under root) lives there too.
        try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        if mkdir(directory.path, 0o700) != 0, errno != EEXIST { throw DevAppleError.io("create", directory.path, errno) }
        let key = try RSAPrivateKey.generate(bits: 2048)
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DevAppleError.io("create", temporary, errno) }
        defer { unlink(temporary) }
        let pem = Array(try key.pemPKCS8().utf8)
        let written = pem.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == pem.count, synced == 0 else { throw DevAppleError.io("write", temporary, errno) }
        if link(temporary, path) != 0 {
            guard errno == EEXIST, let winner = try readKey(at: path) else { throw DevAppleError.io("link", path, errno) }
            return winner
        }
        return key
    }

    private static func readKey(at path: String) throws -> RSAPrivateKey? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try RSAPrivateKey(pemPKCS8: String(decoding: data, as: UTF8.self))
        } catch {
            throw DevAppleError.unreadableKey(path)
        }
    }
}

/// Why the dev signer could not load or create its key.
public enum DevAppleError: Error, CustomStringConvertible {
    /// A file operation failed: what, on which path, and `errno`.
    case io(String, String, Int32)
    /// The key file exists but is not an RSA PKCS#8 PEM key.
    case unreadableKey(String)

    /// One line for the operator.
    public var description: String {
        switch self {
        case .io(let operation, let path, let code): "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        case .unreadableKey(let path): "\(path) is not an RSA private key (PKCS#8 PEM); delete it to make a new dev key"
        }
    }
}

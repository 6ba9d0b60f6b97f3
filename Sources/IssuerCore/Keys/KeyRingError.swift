/// Why a key ring is not valid (docs/reference.md, "Signing keys"). A server that gets one keeps its previous ring and logs
/// this; the CLI prints it as its one-line reason, so each case says what is wrong and where.
///
/// Loading never throws for an empty or missing ring directory: that is ``KeyRing/empty``; only
/// a server already signing with a ring refuses it, as ``disappeared(directory:)``. A directory
/// that still holds key files is not empty, whatever its `ring.json` says: that is
/// ``brokenRing(directory:keyFiles:)``.
public enum KeyRingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A non-empty ring without an active key would leave nothing to sign with.
    case noActiveKey
    /// docs/reference.md, "Signing keys": exactly one active key.
    case multipleActiveKeys([String])
    /// docs/reference.md, "Signing keys": at most one next key.
    case multipleNextKeys([String])
    /// The same key listed twice.
    case duplicateKid(String)
    /// A key's timestamps contradict its state.
    case inconsistentTimestamps(kid: String, detail: String)
    /// `ring.json` is not valid JSON of the expected shape.
    case malformedStateFile(path: String, detail: String)
    /// `ring.json` was written by a newer (or unknown) format version.
    case unsupportedStateVersion(path: String, version: Int)
    /// A `kid` in `ring.json` that is not a RFC 7638 thumbprint; refused before it is used as a file name.
    case invalidKid(String)
    /// `ring.json` names a key whose `<kid>.pem` is not there.
    case keyFileMissing(kid: String, path: String)
    /// `<kid>.pem` is not an unencrypted PKCS#8 RSA private key of 2048 bits or more (RFC 7518 §3.3).
    case invalidKeyFile(kid: String, path: String)
    /// `<kid>.pem` holds a key whose RFC 7638 thumbprint is not the `kid` recorded for it.
    case kidMismatch(kid: String, thumbprint: String, path: String)
    /// A file system operation failed.
    case io(operation: String, path: String, detail: String)
    /// The ring reads as missing or empty under a server that has one in use (an unmounted
    /// volume, an emptied directory): a failed load, not a request to stop signing (docs/reference.md, "Faults and bad input").
    case disappeared(directory: String)
    /// The directory holds `keyFiles` key files (`*.pem`) but no `ring.json` naming them: a copy
    /// or restore that lost the ring's manifest. Never the empty ring, so that nothing offers to
    /// make a new one over it: a new ring would replace every key verifiers trust
    /// (docs/reference.md, "Signing keys").
    case brokenRing(directory: String, keyFiles: Int)

    /// Key files without the `ring.json` that names them (docs/reference.md, "Signing keys"):
    /// to be restored from a backup, never replaced by a new ring.
    public var isBroken: Bool {
        if case .brokenRing = self { true } else { false }
    }

    /// One line an operator can act on (docs/reference.md, "Admin CLI").
    public var description: String {
        switch self {
        case .noActiveKey:
            "invalid key ring: no active key"
        case .multipleActiveKeys(let kids):
            "invalid key ring: \(kids.count) active keys (\(kids.joined(separator: ", "))); exactly one is allowed"
        case .multipleNextKeys(let kids):
            "invalid key ring: \(kids.count) next keys (\(kids.joined(separator: ", "))); at most one is allowed"
        case .duplicateKid(let kid):
            "invalid key ring: key \(kid) is listed more than once"
        case .inconsistentTimestamps(let kid, let detail):
            "invalid key ring: key \(kid) has inconsistent timestamps: \(detail)"
        case .malformedStateFile(let path, let detail):
            "invalid key ring: \(path) is malformed: \(detail)"
        case .unsupportedStateVersion(let path, let version):
            "invalid key ring: \(path) has unsupported format version \(version)"
        case .invalidKid(let kid):
            "invalid key ring: \"\(kid.prefix(64))\" is not an RFC 7638 thumbprint"
        case .keyFileMissing(let kid, let path):
            "invalid key ring: key file \(path) for key \(kid) is missing"
        case .invalidKeyFile(let kid, let path):
            "invalid key ring: \(path) for key \(kid) is not an unencrypted PKCS#8 RSA private key of at least 2048 bits"
        case .kidMismatch(let kid, let thumbprint, let path):
            "invalid key ring: \(path) holds the key with thumbprint \(thumbprint), not \(kid)"
        case .io(let operation, let path, let detail):
            "key ring: cannot \(operation) \(path): \(detail)"
        case .disappeared(let directory):
            "key ring: \(directory) is missing or holds no ring, but a ring is in use (an unmounted volume?)"
        case .brokenRing(let directory, let keyFiles):
            "broken key ring: \(directory) holds \(keyFiles) key \(keyFiles == 1 ? "file" : "files") but no ring.json naming them (the ring's manifest is lost): "
                + "restore ring.json from the ring's backup (docs/operations.md, \"A ring without its manifest\"); "
                + "a new ring (`issuer keys init`) would replace every key verifiers trust"
        }
    }
}

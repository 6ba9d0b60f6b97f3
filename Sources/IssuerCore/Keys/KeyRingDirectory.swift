import Foundation
import JOSE

/// The key ring directory, `ISSUER_KEYS_DIR` (docs/reference.md, "Signing keys"): one `<kid>.pem` per key (PKCS#8, mode
/// 0600) and `ring.json`, the ring's state. Anything else in the directory (a README, a
/// Kubernetes secret volume's `..data` links) is ignored.
///
/// Crash safety comes from ordering, not from a journal: every file is written to a temporary
/// name in the same directory, flushed, and renamed into place, and the key files of a new ring
/// are in place before the `ring.json` that names them. A crash therefore leaves either the old
/// `ring.json` or the new one, each with all its keys present. Key files a new ring no longer
/// names are deleted only after it is in place.
///
/// Reading takes no lock, so a server can load a ring from a read-only volume; changing the ring
/// goes through ``modify(_:)``, which holds an exclusive `flock` for the whole read-modify-write
/// so that two concurrent `issuer keys rotate` runs cannot both rotate.
public struct KeyRingDirectory: Sendable {
    /// The directory holding the ring (docs/reference.md, "Signing keys").
    public let directory: URL

    static let stateFileName = "ring.json"
    static let lockFileName = ".ring.lock"
    static let temporaryMarker = ".tmp-"

    /// The ring in `directory`, which need not exist yet: it is created on the first write (docs/reference.md, "Signing keys").
    public init(directory: URL) {
        self.directory = directory
    }

    /// Path of `ring.json` (docs/reference.md, "Signing keys").
    public var stateFilePath: String { path(Self.stateFileName) }

    /// Path of the key file for `kid` (docs/reference.md, "Signing keys").
    public func keyFilePath(kid: String) -> String { path("\(kid).pem") }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name, isDirectory: false).path
    }

    /// Reads the ring (docs/reference.md, "Signing keys"). A missing directory, or one with neither
    /// `ring.json` nor key files, is the empty ring; key files without a `ring.json` naming them
    /// are ``KeyRingError/brokenRing(directory:keyFiles:)``; any other problem throws a
    /// ``KeyRingError`` naming it.
    ///
    /// A writer may prune a key file between our reading `ring.json` and that key file. So when a
    /// key file is missing, `ring.json` is read again: if it changed, the ring changed under us
    /// and we start over; if it did not, the key file is truly missing. Likewise a first
    /// `keys init` puts its key files in place before `ring.json`, so key files without one are
    /// looked at again once before the ring is called broken.
    public func load() throws -> KeyRing {
        var attempts = 0
        while true {
            attempts += 1
            guard let stateData = try readFileIfPresent(stateFilePath) else {
                let keyFiles = keyFileCount()
                if keyFiles == 0 { return .empty }
                if attempts < 10, try readFileIfPresent(stateFilePath) != nil { continue }
                throw KeyRingError.brokenRing(directory: directory.path, keyFiles: keyFiles)
            }
            do {
                let ring = try decodeRing(stateData)
                if ring.isEmpty {
                    // A ring.json naming no key beside key files is no more an empty ring than a missing one.
                    let keyFiles = keyFileCount()
                    if keyFiles > 0 { throw KeyRingError.brokenRing(directory: directory.path, keyFiles: keyFiles) }
                }
                return ring
            } catch KeyRingError.keyFileMissing(let kid, let path) {
                let again = try readFileIfPresent(stateFilePath)
                if again == stateData || attempts >= 10 {
                    throw KeyRingError.keyFileMissing(kid: kid, path: path)
                }
            }
        }
    }

    private func decodeRing(_ stateData: Data) throws -> KeyRing {
        let state = try KeyRingStateFile.decode(stateData, path: stateFilePath)
        guard state.version == KeyRingStateFile.currentVersion else {
            throw KeyRingError.unsupportedStateVersion(path: stateFilePath, version: state.version)
        }
        let keys = try state.keys.map { entry in
            // The kid becomes a file name: anything but a thumbprint could point outside the directory.
            guard Base64URL.decode(entry.kid)?.count == 32 else { throw KeyRingError.invalidKid(entry.kid) }
            let keyPath = keyFilePath(kid: entry.kid)
            guard let pem = try readFileIfPresent(keyPath) else {
                throw KeyRingError.keyFileMissing(kid: entry.kid, path: keyPath)
            }
            let privateKey: RSAPrivateKey
            do {
                privateKey = try RSAPrivateKey(pemPKCS8: String(decoding: pem, as: UTF8.self))
            } catch {
                throw KeyRingError.invalidKeyFile(kid: entry.kid, path: keyPath)
            }
            let key = SigningKey(
                privateKey: privateKey, state: entry.state, createdAt: entry.createdAt,
                activatedAt: entry.activatedAt, retiredAt: entry.retiredAt, publishedUntil: entry.publishedUntil)
            guard key.kid == entry.kid else {
                throw KeyRingError.kidMismatch(kid: entry.kid, thumbprint: key.kid, path: keyPath)
            }
            return key
        }
        return try KeyRing(keys: keys, signerTiming: state.signers)
    }

    /// Runs one read-modify-write of the ring under an exclusive lock on the directory.
    ///
    /// `body` gets the ring as it is on disk *now*, after the lock is held (dex re-checks inside
    /// the transaction for the same reason: another process may have changed the ring since the
    /// caller last looked). When it returns a ring, that ring is written before the lock is
    /// released; `nil` leaves the directory untouched (docs/reference.md, "Signing keys").
    public func modify<Result>(_ body: (KeyRing) throws -> (ring: KeyRing?, result: Result)) throws -> Result {
        try createDirectoryIfNeeded()
        return try withExclusiveLock {
            removeTemporaryFiles()
            let current = try load()
            let (updated, result) = try body(current)
            if let updated {
                // The recorded timing only grows, whatever the body did with it (SignerTiming).
                let kept = current.signerTiming.map { $0.merged(with: updated.signerTiming) } ?? updated.signerTiming
                try persist(try KeyRing(keys: updated.keys, signerTiming: kept), replacing: current)
            }
            return result
        }
    }

    /// Writes `ring` over `previous`: new key files first, then `ring.json`, then deletes the key
    /// files `previous` had and `ring` does not. Only called with the lock held.
    private func persist(_ ring: KeyRing, replacing previous: KeyRing) throws {
        let previousKids = Set(previous.keys.map(\.kid))
        for key in ring.keys where !previousKids.contains(key.kid) {
            let pem: String
            do {
                pem = try key.privateKey.pemPKCS8()
            } catch {
                throw KeyRingError.io(operation: "serialize key", path: keyFilePath(kid: key.kid), detail: "\(error)")
            }
            try writeAtomically(Data(pem.utf8), to: keyFilePath(kid: key.kid), mode: 0o600)
        }
        try syncDirectory()
        try writeAtomically(try KeyRingStateFile(ring: ring).encoded(), to: stateFilePath, mode: 0o644)
        try syncDirectory()
        let keptKids = Set(ring.keys.map(\.kid))
        for kid in previousKids where !keptKids.contains(kid) {
            removeFile(keyFilePath(kid: kid))
        }
    }
}

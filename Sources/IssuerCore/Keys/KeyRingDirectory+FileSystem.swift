import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// POSIX calls rather than FileManager: atomic replacement needs fsync of the file and of the
// directory, exact permission bits, and flock, none of which FileManager exposes.
extension KeyRingDirectory {
    /// The file's bytes, or `nil` when it (or the directory) does not exist.
    func readFileIfPresent(_ path: String) throws -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw ioError("read", path)
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ioError("read", path)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// Writes `data` to a temporary file beside `path`, flushes it, and renames it over `path`,
    /// so readers see the old file or the new one, never a partial one.
    func writeAtomically(_ data: Data, to path: String, mode: mode_t) throws {
        let temporary = path + Self.temporaryMarker + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ioError("create", temporary) }
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            // The umask may have narrowed the mode further; make it exactly what was asked.
            guard fchmod(fd, mode) == 0 else { throw ioError("chmod", temporary) }
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw ioError("write", temporary)
                    }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw ioError("fsync", temporary) }
        }
        guard rename(temporary, path) == 0 else { throw ioError("rename into place", path) }
        succeeded = true
    }

    /// Flushes the directory entry changes (renames, unlinks) so they survive a power loss.
    func syncDirectory() throws {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError("open directory", directory.path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ioError("fsync directory", directory.path) }
    }

    func createDirectoryIfNeeded() throws {
        // 0700: the directory holds private keys.
        if mkdir(directory.path, 0o700) != 0, errno != EEXIST {
            throw ioError("create directory", directory.path)
        }
    }

    /// Runs `body` holding an exclusive `flock` on the directory's lock file.
    ///
    /// `flock` locks belong to the open file description, so two openers in one process exclude
    /// each other just as two processes do; the lock also dies with a crashed process.
    func withExclusiveLock<Result>(_ body: () throws -> Result) throws -> Result {
        let lockPath = path(Self.lockFileName)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ioError("open lock file", lockPath) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw ioError("lock", lockPath) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Deletes temporary files a crashed writer left behind. Only called with the lock held, when
    /// no other writer can own one.
    func removeTemporaryFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.contains(Self.temporaryMarker) {
            removeFile(path(name))
        }
    }

    /// How many key files (`<kid>.pem`) the directory holds, whether or not a ring names them; 0
    /// when it cannot be listed (a missing directory). A writer's temporary files do not count.
    func keyFileCount() -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return 0 }
        return names.filter { $0.hasSuffix(".pem") && !$0.hasPrefix(".") && !$0.contains(Self.temporaryMarker) }.count
    }

    /// Best effort: a file that cannot be deleted is harmless once no ring refers to it.
    func removeFile(_ path: String) {
        unlink(path)
    }

    private func ioError(_ operation: String, _ path: String) -> KeyRingError {
        KeyRingError.io(operation: operation, path: path, detail: String(cString: strerror(errno)))
    }
}

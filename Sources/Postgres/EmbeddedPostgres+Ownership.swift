import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Which process stops the cluster (docs/reference.md, "Faults and bad input" and "The embedded database").
///
/// The process that starts the cluster owns it and stops it on exit; a process that finds it
/// running under a live owner (an admin command beside `issuer serve`) only uses it. Ownership
/// is an exclusive `flock` on `<data directory>.lock`, held for as long as the owner runs. The
/// kernel drops the lock when the owner dies, however it dies, so after a `kill -9` the next
/// start finds the cluster running but the lock free: the cluster is an orphan, and that process
/// takes it over, owning it and stopping it on exit like one it started. (A pid file could not
/// tell a dead owner from a recycled pid.) The lock file lives beside the data directory, not in
/// it, because `initdb` wants an empty directory, and is opened close-on-exec so the postmaster,
/// which we spawn, never inherits it.
extension EmbeddedPostgres {
    /// `<requested data directory>.lock`.
    var ownershipLockPath: String { requestedDirectory.path + ".lock" }

    /// Takes the ownership lock without waiting; true when this object now holds it.
    func tryTakeOwnership() throws -> Bool {
        try ownershipLock.withLock { held in
            if held != nil { return true }
            let fd = open(ownershipLockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw EmbeddedPostgresError.commandFailed("open \(ownershipLockPath)", String(cString: strerror(errno)))
            }
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                if errno == EINTR { continue }
                close(fd)
                return false
            }
            held = fd
            return true
        }
    }

    /// Gives the ownership lock up (after stopping the cluster).
    func releaseOwnership() {
        ownershipLock.withLock { held in
            if let fd = held { close(fd) }
            held = nil
        }
    }
}

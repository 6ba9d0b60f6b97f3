import Foundation

/// Who may change a ring: its owner. On a systemd host the ring belongs to the service's user
/// (`/var/lib/issuer/keys`, `issuer`, docs/operations.md), while the admin commands that read
/// the service's credentials run as root. A key file or `ring.json` written by root is root's,
/// mode 0600, and the servers could no longer read the ring they sign with; so `keys init`,
/// `rotate` and `prune` run as root refuse a ring another user owns, and say how to run them.
enum KeyRingOwnership {
    /// Throws the refusal (exit 2) when this process is root and `directory` (or, before
    /// `keys init` makes it, the directory it goes in) belongs to another user.
    static func check(_ directory: URL) throws {
        guard geteuid() == 0 else { return }
        var info = stat()
        var owned = directory.standardizedFileURL
        if stat(owned.path, &info) != 0 {
            owned = owned.deletingLastPathComponent()
            guard stat(owned.path, &info) == 0 else { return }
        }
        guard info.st_uid != 0 else { return }
        let owner = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
        throw CommandFailure.usage("""
            \(owned.path) belongs to \(owner): change the key ring as \(owner) (runuser -u \(owner) -- issuer keys …); \
            keys written as root would be unreadable to the servers
            """)
    }
}

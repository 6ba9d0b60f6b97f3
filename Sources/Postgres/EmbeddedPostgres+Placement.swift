import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the cluster's files really live when the `postgres` OS user cannot reach the requested
/// directory (docs/reference.md, "The embedded database": the README's first command must work for root in a root-only directory,
/// such as a clone in `/root/issuer`; `/root` is 0700, so `postgres` cannot enter it).
///
/// The decision, and why:
/// - `/root`'s permissions are never widened: that would expose root's home to every user.
/// - Instead the cluster lives in `<fallbackRoot>/<hash>/postgres` (by default
///   `/var/lib/issuer-embedded/…`, in the FHS place for state, but not `/var/lib/issuer`, which is
///   an installed service's own `StateDirectory`: systemd keeps it 0700 for the `issuer` user,
///   where `postgres` could not enter, and preparing a cluster there would open it up), owned by
///   `postgres` and 0700, and
///   the requested `.data/postgres` becomes a symbolic link to it, so an operator looking in the
///   checkout finds it. `<hash>` is a 64-bit FNV-1a hash of the requested absolute path, so each
///   checkout gets its own cluster and a second start finds the same one; `<hash>/source` names
///   the checkout, for a human and to refuse the (unlikely) collision of two paths.
/// - A requested path that already is a link is followed only into the fallback root, to a
///   `<fallbackRoot>/<hash>/postgres` of ours: a moved checkout keeps its cluster. A link anywhere
///   else is refused, never followed: root would otherwise hand whatever it names to `postgres`
///   (`chown -R`), so a link planted in the checkout could take any directory.
/// - An existing, non-empty real directory the user cannot reach is refused as before: moving a
///   cluster is an operator's decision, not ours.
extension EmbeddedPostgres {
    /// The default parent of relocated clusters.
    public static let defaultFallbackRoot = URL(fileURLWithPath: "/var/lib/issuer-embedded", isDirectory: true)

    /// Where earlier versions relocated clusters (`/var/lib/issuer`): a checkout's link into it is
    /// still followed, so an existing development database is kept; no new cluster goes there.
    public static let formerFallbackRoots = [URL(fileURLWithPath: "/var/lib/issuer", isDirectory: true)]

    /// Where the cluster lives for `requested` when it runs as `osUser` (see the extension's notes).
    static func placement(for requested: URL, osUser: String?, fallbackRoot: URL, formerRoots: [URL] = []) -> URL {
        guard let osUser else { return requested }
        let relocated = fallbackRoot.appendingPathComponent(pathHash(requested.path), isDirectory: true)
            .appendingPathComponent("postgres", isDirectory: true)
        if let destination = symbolicLinkDestination(requested) {
            // A link of ours, perhaps from before the checkout moved; any other is refused at start.
            let ours = ([fallbackRoot] + formerRoots).contains { isRelocation(destination, under: $0) }
            return ours ? destination : relocated
        }
        guard !isReachable(requested, by: osUser) else { return requested }
        return relocated
    }

    /// Whether `url` is `<fallbackRoot>/<16 hex digits>/postgres`, where relocated clusters live.
    static func isRelocation(_ url: URL, under fallbackRoot: URL) -> Bool {
        let hash = url.deletingLastPathComponent()
        return url.lastPathComponent == "postgres"
            && hash.deletingLastPathComponent().path == fallbackRoot.path
            && hash.lastPathComponent.utf8.count == 16
            && hash.lastPathComponent.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// Creates the relocated directory (owned by `osUser`, 0700) and the link to it at `requested`.
    func prepareRelocated(requested: URL, osUser: String) throws {
        let fileManager = FileManager.default
        let hashDirectory = directory.deletingLastPathComponent()
        // Reachable (0755) down to the cluster directory, which alone is private (0700).
        for parent in [hashDirectory.deletingLastPathComponent(), hashDirectory] {
            try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
            try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: parent.path)
        }
        let source = hashDirectory.appendingPathComponent("source")
        if let recorded = try? String(contentsOf: source, encoding: .utf8) {
            guard recorded.trimmingCharacters(in: .newlines) == requested.path else {
                throw EmbeddedPostgresError.relocationConflict(hashDirectory.path, recorded.trimmingCharacters(in: .newlines))
            }
        } else {
            try Data((requested.path + "\n").utf8).write(to: source)
        }
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)

        try fileManager.createDirectory(at: requested.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let destination = Self.symbolicLinkDestination(requested) {
            guard destination.path == directory.path else {
                throw EmbeddedPostgresError.foreignLink(requested.path, destination.path)
            }
            return
        }
        var info = stat()
        if lstat(requested.path, &info) == 0 {
            // The earlier failed attempt may have left an empty directory; anything more is a cluster.
            let contents = (try? fileManager.contentsOfDirectory(atPath: requested.path)) ?? ["?"]
            guard (info.st_mode & S_IFMT) == S_IFDIR, contents.isEmpty else {
                throw EmbeddedPostgresError.unreachableDirectory(requested.path)
            }
            try fileManager.removeItem(at: requested)
        }
        try fileManager.createSymbolicLink(atPath: requested.path, withDestinationPath: directory.path)
        logger.info("the postgres OS user cannot reach the data directory; the cluster lives elsewhere, linked from it", metadata: [
            "link": "\(requested.path)", "cluster": "\(directory.path)", "user": "\(osUser)",
        ])
    }

    /// The absolute destination when `url` itself is a symbolic link.
    static func symbolicLinkDestination(_ url: URL) -> URL? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) else { return nil }
        let absolute = target.hasPrefix("/") ? URL(fileURLWithPath: target) : url.deletingLastPathComponent().appendingPathComponent(target)
        return absolute.standardizedFileURL
    }

    /// Whether `user` can search every existing ancestor of `url` (owner, group or other execute bit).
    static func isReachable(_ url: URL, by user: String) -> Bool {
        guard let account = getpwnam(user) else { return false }
        let uid = account.pointee.pw_uid, gid = account.pointee.pw_gid
        var parent = url.deletingLastPathComponent()
        while true {
            var info = stat()
            if stat(parent.path, &info) == 0 {
                let mode = info.st_mode
                let searchable = info.st_uid == uid ? mode & S_IXUSR != 0
                    : info.st_gid == gid ? mode & S_IXGRP != 0
                    : mode & S_IXOTH != 0
                guard searchable else { return false }
            }
            if parent.path == "/" { return true }
            parent = parent.deletingLastPathComponent()
        }
    }

    /// 64-bit FNV-1a, hex: stable across runs and builds (Swift's `Hasher` is seeded per process).
    static func pathHash(_ path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

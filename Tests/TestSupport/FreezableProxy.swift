#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Postgres
import Synchronization

/// A TCP proxy in front of a PostgreSQL server that can go silent (docs/reference.md, "Faults and bad input", "the database going
/// silent"): `freeze()` stops moving bytes in both directions without closing anything, as a
/// network partition that drops packets would, except that this process's kernel still
/// acknowledges what the client sends — so TCP keepalives alone never notice, and only the
/// client's own deadline can. `thaw()` resumes forwarding.
///
/// Listens on 127.0.0.1 on an ephemeral port; each client connection is forwarded to `upstream`,
/// a Unix socket path (the test cluster's) or a TCP host and port. One thread per connection.
public final class FreezableProxy: Sendable {
    /// Where the proxy forwards to.
    public enum Upstream: Sendable {
        case unixSocket(path: String)
        case tcp(host: String, port: Int)
    }

    private struct State {
        var frozen = false
        var stopped = false
    }

    /// The TCP port the proxy listens on, at 127.0.0.1.
    public let port: Int
    private let upstream: Upstream
    private let listener: Int32
    private let state = Mutex(State())

    /// Starts listening at once.
    public init(upstream: Upstream) throws {
        self.upstream = upstream
        let (listener, port) = try LoopbackSocket.listen(backlog: 64)
        self.listener = listener
        self.port = port
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The upstream of a libpq key=value connection string's `host` and `port`: a directory host
    /// is a Unix socket, as libpq reads it.
    public static func upstream(host: String, port: Int) -> Upstream {
        host.hasPrefix("/") ? .unixSocket(path: "\(host)/.s.PGSQL.\(port)") : .tcp(host: host, port: port)
    }

    /// A started proxy in front of the server `conninfo` names, and the key=value connection
    /// string that goes through it (`host`, `port` overridden: the last value of a keyword wins).
    public static func inFront(of conninfo: String) throws -> (proxy: FreezableProxy, conninfo: String) {
        let host = ConnectionString.value(of: "host", in: conninfo) ?? "/var/run/postgresql"
        let port = ConnectionString.value(of: "port", in: conninfo).flatMap { Int($0) } ?? 5432
        let proxy = try FreezableProxy(upstream: upstream(host: host, port: port))
        let separator = conninfo.contains("://") ? (conninfo.contains("?") ? "&" : "?") : " "
        let overrides = conninfo.contains("://") ? "host=127.0.0.1&port=\(proxy.port)" : "host=127.0.0.1 port=\(proxy.port)"
        return (proxy, conninfo + separator + overrides)
    }

    /// Stops forwarding in both directions; connections stay open and unread.
    public func freeze() { state.withLock { $0.frozen = true } }

    /// Forwards again, including what queued up while frozen.
    public func thaw() { state.withLock { $0.frozen = false } }

    /// Stops accepting and closes every forwarded connection (within a poll interval).
    public func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        if !wasStopped { _ = shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }
    private var isFrozen: Bool { state.withLock { $0.frozen } }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            if client < 0 { continue }
            guard let server = connectUpstream() else {
                close(client)
                continue
            }
            Thread.detachNewThread { [self] in pump(client, server) }
        }
    }

    private func connectUpstream() -> Int32? {
        switch upstream {
        case .unixSocket(let path):
            return LoopbackSocket.connect(unixSocket: path)
        case .tcp(let host, let port):
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var results: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return nil }
            defer { freeaddrinfo(results) }
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
                if fd >= 0 {
                    if connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { return fd }
                    close(fd)
                }
                entry = current.pointee.ai_next
            }
            return nil
        }
    }

    /// Moves bytes both ways until either side closes or the proxy stops; while frozen, reads
    /// nothing (so the peers' writes sit in this process's socket buffers) and closes nothing.
    private func pump(_ client: Int32, _ server: Int32) {
        defer {
            close(client)
            close(server)
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !isStopped {
            if isFrozen {
                usleep(10_000)
                continue
            }
            var descriptors = [
                pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                pollfd(fd: server, events: Int16(POLLIN), revents: 0),
            ]
            // Checked again after the wait: bytes that arrive after `freeze()` returned stay unread.
            guard poll(&descriptors, 2, 20) > 0, !isFrozen else { continue }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let from = index == 0 ? client : server
                let to = index == 0 ? server : client
                let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                if count <= 0 { return }
                guard LoopbackSocket.sendAll(to, buffer[0..<count]) else { return }
            }
        }
    }
}

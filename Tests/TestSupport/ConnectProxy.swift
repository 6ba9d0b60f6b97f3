#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A tiny HTTP proxy on loopback that speaks only `CONNECT` (RFC 9110 §9.3.6), as a corporate
/// egress proxy does for `https`: it records every tunnel asked for (its target and its
/// `Proxy-Authorization`), opens the tunnel to targets on 127.0.0.1, and refuses any other target
/// with `403` (so no test reaches the network). One thread per connection.
public final class ConnectProxy: Sendable {
    /// One `CONNECT` request.
    public struct Tunnel: Sendable, Equatable {
        /// `host:port`, as the request line names it.
        public let target: String
        public let proxyAuthorization: String?

        public init(target: String, proxyAuthorization: String?) {
            self.target = target
            self.proxyAuthorization = proxyAuthorization
        }
    }

    public let port: Int
    private let listener: Int32
    private let state = Mutex<(tunnels: [Tunnel], stopped: Bool)>(([], false))

    /// Starts listening at once.
    public init() throws {
        let (listener, port) = try LoopbackSocket.listen(backlog: 16)
        self.listener = listener
        self.port = port
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread { self.serve(connection) }
            }
        }
    }

    /// Every tunnel asked for so far, in order.
    public var tunnels: [Tunnel] { state.withLock { $0.tunnels } }

    /// Stops accepting; open tunnels end when either side closes.
    public func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        let head = LoopbackSocket.receive(client, milliseconds: 5000) { $0.suffix(4).elementsEqual("\r\n\r\n".utf8) }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let request = lines.first?.split(separator: " ") ?? []
        guard request.count == 3, request[0] == "CONNECT" else {
            _ = LoopbackSocket.sendAll(client, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            return
        }
        let target = String(request[1])
        let authorization = lines.dropFirst().first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        state.withLock { $0.tunnels.append(Tunnel(target: target, proxyAuthorization: authorization)) }
        guard target.hasPrefix("127.0.0.1:"), let port = Int(target.dropFirst("127.0.0.1:".count)),
              let server = LoopbackSocket.connect(port: port)
        else {
            _ = LoopbackSocket.sendAll(client, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            return
        }
        defer { close(server) }
        guard LoopbackSocket.sendAll(client, "HTTP/1.1 200 Connection established\r\n\r\n".utf8) else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 2, 10_000) > 0 else { return }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let (from, to) = index == 0 ? (client, server) : (server, client)
                let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                guard count > 0, LoopbackSocket.sendAll(to, buffer[0..<count]) else { return }
            }
        }
    }
}

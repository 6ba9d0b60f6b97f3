#if canImport(Glibc)
import Glibc
#endif

/// Blocking TCP sockets on 127.0.0.1, and connections to Unix sockets, for the few test parties
/// that must write bytes by hand: a client that trickles or malforms a request (`TrickleClient`), a
/// remote that misbehaves (`ScriptedHTTPServer`), a database link that goes silent
/// (`FreezableProxy`) or answers in large TLS records (`LargeRecordTLSProxy`), requests in a set
/// order on one connection (`RawHTTPAnswer`). Ordinary HTTP requests go through `TestHTTP`
/// (AsyncHTTPClient) instead.
public enum LoopbackSocket {
    /// A system call failed with `errno`.
    public struct Failure: Error {
        public let call: String
        public let code: Int32
    }

    /// A listening socket on an ephemeral port of 127.0.0.1, and that port; the caller closes it.
    public static func listen(backlog: Int32) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "bind/listen", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A blocking connection to 127.0.0.1:`port`, or nil; the caller closes it.
    public static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// A blocking connection to the Unix socket at `path` (a database's, a proxy's), or nil when
    /// nothing listens there or the path is too long for `sockaddr_un`; the caller closes it.
    public static func connect(unixSocket path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8)
            buffer[path.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Writes every byte (retrying short writes and EINTR); false once the peer has gone. No
    /// SIGPIPE: a write to a closed connection fails instead of killing the test process.
    public static func sendAll(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Bool {
        let bytes = Array(bytes)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads until the peer closes, `enough` says so, or `milliseconds` pass without a byte;
    /// answers every byte read.
    public static func receive(_ fd: Int32, milliseconds: Int32, until enough: ([UInt8]) -> Bool) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !enough(received) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, milliseconds) > 0 else { break }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return received
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}

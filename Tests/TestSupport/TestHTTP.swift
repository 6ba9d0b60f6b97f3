import Foundation

/// A minimal HTTP/1.1 GET over loopback for end-to-end tests of a server in another process
/// (Foundation's URLSession is not available in every Linux toolchain configuration).
public enum TestHTTP {
    /// The status code of `GET path` on 127.0.0.1:`port`, or nil if nothing answered.
    public static func status(port: Int, path: String) async -> Int? {
        try? await Offload.run {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { return nil }
            let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), 0) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 12 else { return nil }
            let head = String(decoding: buffer[0..<count], as: UTF8.self)
            let parts = head.split(separator: " ", maxSplits: 2)
            return parts.count >= 2 ? Int(parts[1]) : nil
        } ?? nil
    }
}

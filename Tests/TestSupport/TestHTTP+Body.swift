import Foundation

extension TestHTTP {
    /// `GET path` on 127.0.0.1:`port`: the status and the body, or nil if nothing answered.
    public static func get(port: Int, path: String) async -> (status: Int, body: String)? {
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
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            let text = String(decoding: received, as: UTF8.self)
            guard let split = text.range(of: "\r\n\r\n") else { return nil }
            let parts = text[..<split.lowerBound].split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
            return (status, String(text[split.upperBound...]))
        } ?? nil
    }
}

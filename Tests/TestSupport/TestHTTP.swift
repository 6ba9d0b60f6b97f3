import Foundation

/// A minimal HTTP/1.1 client over loopback for end-to-end tests of a server in another process
/// (Foundation's URLSession is not available in every Linux toolchain configuration).
public enum TestHTTP {
    /// The status code of `GET path` on 127.0.0.1:`port`, or nil if nothing answered.
    public static func status(port: Int, path: String) async -> Int? {
        await get(port: port, path: path)?.status
    }

    /// `GET path` on 127.0.0.1:`port`: the status and the body, or nil if nothing answered.
    public static func get(port: Int, path: String) async -> (status: Int, body: String)? {
        await roundTrip(port: port, request: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    }

    /// `POST path` with a JSON body on 127.0.0.1:`port`: the status and the body, or nil if
    /// nothing answered.
    public static func post(port: Int, path: String, json: Data) async -> (status: Int, body: String)? {
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(json.count)\r\n\r\n"
        return await roundTrip(port: port, request: head + String(decoding: json, as: UTF8.self))
    }

    /// Sends `request` on a new connection and reads the answer until the server closes it
    /// (every request here says `Connection: close`).
    static func roundTrip(port: Int, request: String) async -> (status: Int, body: String)? {
        try? await Offload.run {
            guard let fd = connectLoopback(port: port) else { return nil }
            defer { close(fd) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let bytes = Array(request.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return nil }
                sent += count
            }
            var answer = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { break }
                answer += buffer[0..<count]
            }
            let text = String(decoding: answer, as: UTF8.self)
            let parts = text.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
            let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
            return (status, body)
        } ?? nil
    }

    /// A blocking TCP connection to 127.0.0.1:`port`, or nil; the caller closes it.
    static func connectLoopback(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}

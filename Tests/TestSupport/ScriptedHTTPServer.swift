import Foundation
import Synchronization

/// A loopback HTTP server whose every answer is written by hand, byte by byte if need be, to
/// play a remote party that misbehaves (a trickled body, a redirect, a lying length). Blocking
/// sockets on threads of its own, so nothing it does depends on the code under test.
final class ScriptedHTTPServer: Sendable {
    /// Writes the answer to one request: `path` was requested, `send` writes bytes and returns
    /// false once the client has gone.
    typealias Script = @Sendable (_ path: String, _ send: (String) -> Bool) -> Void

    let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var paths: [String] = []
        var stopped = false
    }

    /// The paths requested so far, in order.
    var requestedPaths: [String] { state.withLock { $0.paths } }

    var isStopped: Bool { state.withLock { $0.stopped } }

    init(script: @escaping Script) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread { self.serve(connection, script) }
            }
        }
    }

    /// Stops accepting and ends every script at its next write.
    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(_ connection: Int32, _ script: Script) {
        defer { close(connection) }
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            guard recv(connection, &byte, 1, 0) == 1 else { return }
            head.append(byte)
        }
        let path = String(decoding: head, as: UTF8.self).split(separator: " ").dropFirst().first.map(String.init) ?? ""
        state.withLock { $0.paths.append(path) }
        script(path) { text in
            guard !self.isStopped else { return false }
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

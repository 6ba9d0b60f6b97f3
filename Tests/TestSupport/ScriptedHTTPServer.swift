import Foundation
import Synchronization

/// A loopback HTTP server whose every answer is written by hand, byte by byte if need be, to
/// play a remote party that misbehaves (a trickled body, a redirect, a lying length). Blocking
/// sockets on threads of its own, so nothing it does depends on the code under test; raw bytes
/// on purpose, since a well-behaved HTTP server library could not misbehave this way.
public final class ScriptedHTTPServer: Sendable {
    /// Writes the answer to one request: `path` was requested, `send` writes bytes and returns
    /// false once the client has gone.
    public typealias Script = @Sendable (_ path: String, _ send: (String) -> Bool) -> Void

    public let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var paths: [String] = []
        var stopped = false
    }

    /// The paths requested so far, in order.
    public var requestedPaths: [String] { state.withLock { $0.paths } }

    public var isStopped: Bool { state.withLock { $0.stopped } }

    public init(script: @escaping Script) throws {
        let (fd, port) = try LoopbackSocket.listen(backlog: 16)
        self.port = port
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
    public func stop() {
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
            return LoopbackSocket.sendAll(connection, text.utf8)
        }
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

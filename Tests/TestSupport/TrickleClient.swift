import Foundation

/// A client that sends a request very slowly, as a "slowloris" attacker does, to test that the
/// server closes connections that do not deliver a complete request in time (docs/reference.md, "Faults and bad input").
///
/// Raw sockets on purpose: an HTTP client library sends a request whole, and what is under test
/// here is a request that never arrives whole. Ordinary requests go through `TestHTTP`.
public enum TrickleClient {
    /// Connects to 127.0.0.1:`port`, sends `head` at once, then one byte of `body` every
    /// `interval` until the server closes the connection or `giveUpAfter` passes. Answers how
    /// long the server kept the connection open, or nil if it never closed it.
    public static func secondsUntilClosed(
        port: Int, head: String, body: String, interval: TimeInterval, giveUpAfter: TimeInterval
    ) async -> TimeInterval? {
        try? await Offload.run {
            guard let fd = LoopbackSocket.connect(port: port) else { return nil }
            defer { close(fd) }
            let start = Date()
            guard LoopbackSocket.sendAll(fd, head.utf8) else { return 0 }
            var remaining = Array(body.utf8)[...]
            while Date().timeIntervalSince(start) < giveUpAfter {
                if closedByPeer(fd, wait: interval) { return Date().timeIntervalSince(start) }
                guard let byte = remaining.popFirst() else { continue }
                // A send into a connection the server closed fails (EPIPE) or is answered by a
                // reset that the next poll sees.
                if !LoopbackSocket.sendAll(fd, [byte]) { return Date().timeIntervalSince(start) }
            }
            return nil
        } ?? nil
    }

    /// Waits up to `wait` for the peer to close (end of stream or reset); data it sends (an
    /// error response before closing) is read and ignored.
    private static func closedByPeer(_ fd: Int32, wait: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(wait)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(remaining * 1000))
            guard ready > 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return true }
        }
    }
}

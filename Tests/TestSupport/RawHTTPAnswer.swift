#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 answer read off a raw connection (`LoopbackSocket`), for the tests that must see
/// answers as bytes on the wire: their order on one connection, and what follows them.
public struct RawHTTPAnswer: Sendable {
    public let statusLine: String
    public let fields: [(name: String, value: String)]
    public let body: [UInt8]

    /// The first field of that name (case-insensitive), if any.
    public func field(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Reads the next answer on `fd`: the head, then as many body bytes as its `Content-Length`
    /// says unless `bodyless` (an answer to HEAD). `pending` holds bytes already read and keeps
    /// what follows the answer. Nil when no byte arrives for 30 seconds: generous, since a
    /// loaded machine is slow and only a failing test waits it out.
    public static func read(_ fd: Int32, pending: inout [UInt8], bodyless: Bool = false) -> RawHTTPAnswer? {
        let separator = Array("\r\n\r\n".utf8)
        func headEnd(_ bytes: [UInt8]) -> Int? {
            bytes.indices.dropLast(3).first { bytes[$0..<$0 + 4].elementsEqual(separator) }
        }
        let before = pending
        pending += LoopbackSocket.receive(fd, milliseconds: 30_000) { headEnd(before + $0) != nil }
        guard let end = headEnd(pending) else { return nil }
        let lines = String(decoding: pending[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        pending.removeFirst(end + 4)
        let fields = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        let length = bodyless ? 0 : (fields.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0)
        let buffered = pending
        pending += LoopbackSocket.receive(fd, milliseconds: 30_000) { buffered.count + $0.count >= length }
        let body = Array(pending.prefix(length))
        pending.removeFirst(body.count)
        return RawHTTPAnswer(statusLine: String(lines[0]), fields: fields, body: body)
    }
}

import IssuerServer
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// The request heads answered before NIO's HTTP/1 decoder (`PlainGetHead`, docs/design.md,
/// "Request paths"). Whatever the bytes, reading them never traps; and a head read there is one
/// NIO's decoder reads the same way: a GET of the same target in HTTP/1.1, one `Host`, the same
/// `If-None-Match` list (but for whitespace after a value), no body, a connection kept open. A difference would be a request the
/// server answers one way on a fresh connection and another way after it. Fuzzed by
/// Fuzz/PlainGetHead, replayed on its corpus by Tests/FuzzCorpusTests.
public enum PlainGetHeadHarness {
    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        guard let head = PlainGetHead(input) else { return }
        precondition(head.length <= min(input.count, PlainGetHead.maxLength), "length \(head.length) past the input")
        let bytes = UnsafeRawBufferPointer(rebasing: input[..<head.length])
        precondition(bytes.suffix(4).elementsEqual("\r\n\r\n".utf8), "a head ends with an empty line")
        precondition(PlainGetHead(bytes) == head, "the head alone reads differently")
        precondition(head.target.hasPrefix("/"), "target \(head.target)")

        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
        defer { _ = try? channel.finish() }
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
        } catch {
            preconditionFailure("NIO's decoder refused a plain GET head: \(error)")
        }
        guard case .head(let request)? = try? channel.readInbound(as: HTTPServerRequestPart.self) else {
            preconditionFailure("NIO's decoder read no head")
        }
        precondition(request.method == .GET && request.version == .http1_1, "\(request.method) \(request.version)")
        precondition(request.uri == head.target, "target \(head.target), NIO's \(request.uri)")
        precondition(request.headers["host"].count == 1, "Host \(request.headers["host"])")
        precondition(request.isKeepAlive, "not kept open for NIO")
        // RFC 9110 §5.5: a field value excludes the whitespace around it. NIO keeps what follows it
        // (the ETag comparison trims every list element), PlainGetHead drops it.
        let conditions = request.headers["if-none-match"].map { String($0.reversed().drop { $0 == " " || $0 == "\t" }.reversed()) }
        precondition(
            (conditions.isEmpty ? nil : conditions.joined(separator: ", ")) == head.ifNoneMatch,
            "If-None-Match \(String(describing: head.ifNoneMatch)), NIO's \(conditions)")
        guard case .end? = try? channel.readInbound(as: HTTPServerRequestPart.self) else {
            preconditionFailure("NIO's decoder read a body")
        }
    }
}

import HTTPTypes
import NIOCore
import NIOHTTP1

/// A `StaticAnswer` in the HTTP/1 types that NIO's encoder writes, converted once when the answer
/// changes rather than per request, with the fields `ResponseStamp` puts on every answer. Two of
/// those differ per response and are added by `head(date:requestID:)`: `Date` and `X-Request-Id`.
///
/// It is written two ways. Through NIO's response encoder (`StaticRouteHandler`), which frames it
/// (RFC 9112 §6) and pairs each request it decoded with the response that answers it (to frame
/// answers to HEAD), so that a request the decoder read must be answered through it. And as ready
/// bytes (`wireHead`, `writeWire`) by `ReadyAnswerHandler`, for requests the decoder never saw.
///
/// A class, so that handing an answer to a request retains one reference, not each of its parts.
final class EncodedAnswer: Sendable {
    let status: HTTPResponseStatus
    /// The answer's own fields, `ResponseStamp`'s fixed ones and `Content-Length`.
    let headers: HTTPHeaders
    let body: ByteBuffer?
    /// The status line and `headers` as HTTP/1.1 writes them (RFC 9112 §4, §5.1).
    let wireHead: [UInt8]

    init(_ answer: StaticAnswer) {
        status = HTTPResponseStatus(statusCode: answer.status.code, reasonPhrase: answer.status.reasonPhrase)
        body = answer.body
        // HTTPFields has already refused names and values that could split a line (RFC 9110
        // §5.5), so these need no further checks.
        var headers = HTTPHeaders(answer.headers.map { ($0.name.rawName, $0.value) })
        ResponseStamp.stampEncoded(&headers)
        if let body = answer.body { headers.add(name: "Content-Length", value: String(body.readableBytes)) }
        self.headers = headers
        var wire = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for (name, value) in headers { wire += "\(name): \(value)\r\n" }
        wireHead = Array(wire.utf8)
    }

    /// One whole response as ready bytes, for a GET (a body whenever the answer has one).
    /// The request id is written as the next `StaticRequestID`, and no `String` is made of it.
    func writeWire(into buffer: inout ByteBuffer, date: String) {
        buffer.writeBytes(wireHead)
        buffer.writeStaticString("Date: ")
        buffer.writeString(date)
        buffer.writeBytes(Self.requestIDLead)
        StaticRequestID.writeNext(into: &buffer)
        buffer.writeStaticString("\r\n\r\n")
        if let body { buffer.writeImmutableBuffer(body) }
    }

    /// What comes between `Date`'s value and the request id.
    private static let requestIDLead = Array("\r\n\(ResponseStamp.requestIDName): ".utf8)

    /// The head of one response.
    func head(date: String, requestID: String) -> HTTPResponseHead {
        var headers = headers
        ResponseStamp.stampEach(&headers, date: date, requestID: requestID)
        return HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    }
}

import HTTPTypes
import NIOCore
import NIOHTTP1

/// A `StaticAnswer` in the HTTP/1 types that NIO's encoder writes, converted once when the answer
/// changes rather than per request, with the fields `ResponseStamp` puts on every answer. Two of
/// those differ per response and are added by `head(date:requestID:)`: `Date` and `X-Request-Id`.
///
/// The answer still goes through NIO's response encoder rather than as ready bytes past it: the
/// encoder frames it (RFC 9112 §6), and pairs each request it decoded with the response that
/// answers it (to frame answers to HEAD), so a request answered past it would stay queued there.
struct EncodedAnswer: Sendable {
    let status: HTTPResponseStatus
    /// The answer's own fields, `ResponseStamp`'s fixed ones and `Content-Length`.
    let headers: HTTPHeaders
    let body: ByteBuffer?

    init(_ answer: StaticAnswer) {
        status = HTTPResponseStatus(statusCode: answer.status.code, reasonPhrase: answer.status.reasonPhrase)
        body = answer.body
        // HTTPFields has already refused names and values that could split a line (RFC 9110
        // §5.5), so these need no further checks.
        var headers = HTTPHeaders(answer.headers.map { ($0.name.rawName, $0.value) })
        ResponseStamp.stampEncoded(&headers)
        if let body = answer.body { headers.add(name: "Content-Length", value: String(body.readableBytes)) }
        self.headers = headers
    }

    /// The head of one response.
    func head(date: String, requestID: String) -> HTTPResponseHead {
        var headers = headers
        ResponseStamp.stampEach(&headers, date: date, requestID: requestID)
        return HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    }
}

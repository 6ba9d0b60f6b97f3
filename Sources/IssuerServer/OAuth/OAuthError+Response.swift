import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// RFC 6749 §5.2: an error is a JSON object with `error` and `error_description`, never cached.
/// Thrown from a route, Hummingbird renders it through `HTTPResponseError`.
extension OAuthError: HTTPResponseError {
    /// `HTTPResponseError`: the status `statusCode` holds.
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    /// RFC 6749 §5.2 JSON with `no-store`, `Retry-After` when set, and `WWW-Authenticate` on a 401 (RFC 6750 §3).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store", .pragma: "no-cache"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if code == .invalidToken || (code == .invalidClient && statusCode == 401) {
            // RFC 6750 §3 / RFC 6749 §5.2: a 401 names its scheme.
            headers[.wwwAuthenticate] = #"Bearer error="\#(code.rawValue)""#
        }
        let body = try JSONEncoder.oauth.encode(["error": code.rawValue, "error_description": description])
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension JSONEncoder {
    /// Sorted keys for stable bytes; slashes unescaped so URLs read as they are.
    static let oauth: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

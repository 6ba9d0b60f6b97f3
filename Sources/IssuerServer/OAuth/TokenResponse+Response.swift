import HTTPTypes
import Hummingbird
import IssuerCore

extension TokenResponse {
    /// RFC 6749 §5.1: JSON, and never stored by any cache.
    var response: Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "no-store", .pragma: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: encodedJSON())))
    }
}

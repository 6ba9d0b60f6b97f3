import Hummingbird
import IssuerCore

extension BrowserParameters {
    /// A browser request's parameters: the query of a `GET`, the form body of a `POST` (which must
    /// be `application/x-www-form-urlencoded` UTF-8, else `Malformed`).
    static func read(_ request: Request, context: IssuerRequestContext) async throws -> BrowserParameters {
        if request.method == .post {
            let contentType = request.headers.mediaType
            guard contentType == "application/x-www-form-urlencoded" else { throw Malformed() }
            let buffer = try await request.body.collect(upTo: context.maxUploadSize)
            guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else { throw Malformed() }
            return try parse(text)
        }
        return try parse(request.uri.query ?? "")
    }
}

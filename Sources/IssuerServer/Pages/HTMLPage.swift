import HTTPTypes
import Hummingbird
import IssuerCore

/// The few pages the issuer shows a browser (docs/reference.md, "Hosted sign-in" and "Sign-out"): a title and one sentence,
/// accessible (a language, a heading, a readable size), with no script, style or frame, and
/// everything echoed escaped. `Content-Security-Policy: default-src 'none'` forbids anything a
/// page might load, `X-Frame-Options: DENY` forbids framing, and `no-store` keeps them out of
/// caches.
struct HTMLPage {
    let status: HTTPResponse.Status
    let title: String
    let message: String

    var response: Response {
        let body = """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLEscaping.escape(title))</title></head>
            <body><main><h1>\(HTMLEscaping.escape(title))</h1><p>\(HTMLEscaping.escape(message))</p></main></body>
            </html>

            """
        return Response(
            status: status,
            headers: Self.headers,
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static let headers: HTTPFields = [
        .contentType: "text/html; charset=utf-8",
        .contentSecurityPolicy: "default-src 'none'",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        .cacheControl: "no-store",
        .pragma: "no-cache",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]

    /// A `302` to `location` with the same protective headers (RFC 6749 §4.1.2).
    static func redirect(to location: String) -> Response {
        var headers = headers
        headers[.location] = location
        headers[.contentType] = nil
        return Response(status: .found, headers: headers)
    }

    /// The hosted flow's provider chooser (docs/reference.md, "Hosted sign-in"): one plain link
    /// per provider, no script, the same headers as every page.
    static func chooser(_ choices: [(label: String, url: String)]) -> Response {
        let links = choices.map { "<li><a href=\"\(HTMLEscaping.escape($0.url))\">Continue with \(HTMLEscaping.escape($0.label))</a></li>" }.joined()
        let body = """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sign in</title></head>
            <body><main><h1>Sign in</h1><ul>\(links)</ul></main></body>
            </html>

            """
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// A page for a status: the title says what kind of answer it is.
    static func page(status: Int, message: String) -> Response {
        let title: String
        switch status {
        case 200: title = "Signed out"
        case 503: title = "Temporarily unavailable"
        default: title = "Sign-in request refused"
        }
        return HTMLPage(status: HTTPResponse.Status(code: status), title: title, message: message).response
    }
}

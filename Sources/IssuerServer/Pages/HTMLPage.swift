import HTTPTypes
import Hummingbird
import IssuerCore

/// One of the pages people see (docs/reference.md, "The pages people see"): a document in the
/// reader's language around markup `PageRenderer` built, with every echoed value escaped there.
/// No script at all. `Content-Security-Policy` is `default-src 'none'` and exactly what the page
/// itself uses: its inline style sheet by hash, and `img-src 'self'` only where it shows a logo
/// the issuer serves; `X-Frame-Options: DENY` forbids framing, and `no-store` keeps pages out of
/// caches.
struct HTMLPage {
    let status: HTTPResponse.Status
    /// The language tag of the text, for `<html lang>` and `Content-Language`.
    let language: String
    /// The document's title, not escaped yet.
    let title: String
    /// What goes inside `<main>`, escaped where it echoes anything.
    let main: String
    let style: PageStyle
    /// Whether `main` shows a logo from `/assets/`.
    let showsImage: Bool

    var response: Response {
        let body = """
            <!doctype html>
            <html lang="\(HTMLEscaping.escape(language))">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(HTMLEscaping.escape(title))</title>
            <style>\(style.css)</style>
            </head>
            <body>
            <main>
            \(main)
            </main>
            </body>
            </html>

            """
        var headers = Self.headers(contentSecurityPolicy: contentSecurityPolicy)
        headers[.contentLanguage] = language
        headers[.vary] = "Accept-Language"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// `default-src 'none'`, the style sheet's hash, and the issuer's own images when shown.
    var contentSecurityPolicy: String {
        "default-src 'none'; style-src \(style.source)" + (showsImage ? "; img-src 'self'" : "")
    }

    static func headers(contentSecurityPolicy: String) -> HTTPFields {
        [
            .contentType: "text/html; charset=utf-8",
            .contentSecurityPolicy: contentSecurityPolicy,
            HTTPField.Name("X-Frame-Options")!: "DENY",
            .cacheControl: "no-store",
            .pragma: "no-cache",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
    }

    /// A `302` to `location` with the same protective headers, and a policy that allows nothing
    /// since it has no body (RFC 6749 §4.1.2).
    static func redirect(to location: String) -> Response {
        var headers = headers(contentSecurityPolicy: "default-src 'none'")
        headers[.location] = location
        headers[.contentType] = nil
        return Response(status: .found, headers: headers)
    }
}

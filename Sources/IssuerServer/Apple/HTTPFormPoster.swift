import AsyncHTTPClient
import Foundation
import IssuerCore
import NIOCore

/// Posts forms to Apple's token and revoke endpoints and to providers' token endpoints through `RemoteFetch`
/// (docs/reference.md, "Faults and bad input"): one deadline for the whole exchange, a 64 KiB cap
/// on the answer, no redirects, `https` only (or loopback).
struct HTTPFormPoster: FormPoster {
    /// docs/reference.md, "Outbound proxy".
    var proxy: OutboundProxy = .direct
    var clients: RemoteHTTPClients = .shared
    /// Apple's token and revoke answers are a few hundred bytes: anything past 64 KiB is not Apple.
    static let maximumAnswerSize = 64 * 1024

    var maximumBodySize = Self.maximumAnswerSize

    func postForm(to url: URL, fields: [(String, String)], headers: [(String, String)], timeout: Duration) async throws -> FormPostAnswer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: Self.formEncoded(fields)))
        let response = try await RemoteFetch(proxy: proxy, clients: clients, timeout: timeout, maximumBodySize: maximumBodySize).execute(request)
        return FormPostAnswer(status: response.status, body: Data(buffer: response.body))
    }

    /// WHATWG URL §5.2 `application/x-www-form-urlencoded` serialisation.
    static func formEncoded(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "*-._")
        func encode(_ text: String) -> String {
            // alphanumerics holds non-ASCII letters too; only ASCII ones may stay as they are.
            text.unicodeScalars.map { scalar in
                scalar.isASCII && allowed.contains(scalar) ? String(scalar)
                    : scalar == " " ? "+" : String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
            }.joined()
        }
        return fields.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}

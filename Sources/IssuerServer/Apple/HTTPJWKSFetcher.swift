import AsyncHTTPClient
import Foundation
import IssuerCore
import NIOCore

/// Fetches a JWK Set over HTTP for `RemoteJWKSCache`, with SPEC §7's 5-second timeout and a
/// bound on the body, so a misbehaving endpoint can neither hang nor flood the issuer.
struct HTTPJWKSFetcher: JWKSFetcher {
    let client: HTTPClient
    var timeout: TimeAmount = .seconds(5)
    var maximumBodySize = 1024 * 1024

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func fetchJWKS(from url: URL) async throws -> JWKSDocument {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: timeout)
        guard (200..<300).contains(response.status.code) else {
            throw Failure(description: "HTTP \(response.status.code)")
        }
        let body = try await response.body.collect(upTo: maximumBodySize)
        return JWKSDocument(
            body: Data(buffer: body),
            maxAge: JWKSDocument.maxAge(fromCacheControl: response.headers.first(name: "Cache-Control")))
    }
}

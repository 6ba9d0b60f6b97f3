import AsyncHTTPClient
import Foundation
import IssuerCore

/// Fetches a JWK Set over HTTP for `RemoteJWKSCache` through `RemoteFetch`: the 5-second (docs/reference.md, "Faults and bad input")
/// deadline for the whole exchange, a 1 MiB cap, no redirects, so a misbehaving endpoint can
/// neither hang nor flood nor crash the issuer.
struct HTTPJWKSFetcher: JWKSFetcher {
    var fetch = RemoteFetch()

    func fetchJWKS(from url: URL) async throws -> JWKSDocument {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await fetch.execute(request)
        guard (200..<300).contains(response.status) else { throw RemoteFetchError.status(response.status) }
        // RFC 9110 §5.3: several field lines are one comma-separated list.
        let cacheControl = response.headers["Cache-Control"]
        return JWKSDocument(
            body: Data(buffer: response.body),
            maxAge: JWKSDocument.maxAge(fromCacheControl: cacheControl.isEmpty ? nil : cacheControl.joined(separator: ", ")))
    }
}

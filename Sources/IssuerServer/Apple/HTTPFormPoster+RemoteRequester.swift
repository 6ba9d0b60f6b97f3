import AsyncHTTPClient
import Foundation
import IssuerCore
import NIOCore
import NIOHTTP1

extension HTTPFormPoster: RemoteRequester {
    func send(_ method: String, to url: URL, timeout: Duration) async throws -> FormPostAnswer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await RemoteFetch(proxy: proxy, clients: clients, timeout: timeout, maximumBodySize: maximumBodySize).execute(request)
        return FormPostAnswer(status: response.status, body: Data(buffer: response.body))
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

extension TestClientProtocol {
    /// POSTs a JSON object and answers the response.
    @discardableResult
    func postJSON(_ uri: String, _ object: [String: Any]) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: object)
        return try await executeRequest(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body))
    }

    /// POSTs a form and answers the response.
    @discardableResult
    func postForm(_ uri: String, _ fields: [(String, String)]) async throws -> TestResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        return try await executeRequest(
            uri: uri, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: body))
    }

    /// GETs `uri` and answers the response.
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await executeRequest(uri: uri, method: .get, headers: headers, body: nil)
    }
}

extension TestResponse {
    /// The body as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }
}

import Foundation
import Hummingbird
import IssuerCore

/// docs/reference.md, "Facebook's callbacks": `POST /auth/{provider}/deauthorize` and
/// `POST /auth/{provider}/data-deletion` (a form with `signed_request`), and the data deletion
/// status page `GET /auth/{provider}/data-deletion?code=…`, for each provider whose connector
/// receives them (`ProviderCallbackConnector`); any other provider name is `404`. Not rate limited:
/// the provider is the caller.
struct ProviderCallbacksEndpoint {
    /// By provider id.
    let callbacks: [String: any ProviderCallbackConnector]
    let pages: PageRenderer

    func register(on routes: RouteRegistrar) {
        routes.add(.providerDeauthorize) { request, context in
            let receiver = try receiver(context)
            let parameters = try await OAuthParameters.parse(request)
            try await receiver.deauthorize(payload: try parameters.optional(receiver.payloadField), logger: context.logger)
            return try Self.json(EmptyAnswer())
        }
        routes.add(.providerDataDeletion) { request, context in
            let receiver = try receiver(context)
            if request.method == .get {
                let code = request.uri.queryParameters["code"].map(String.init) ?? ""
                let receivedAt = try await receiver.status(code: code)
                return pages.dataDeletionStatus(receivedAt: receivedAt, provider: receiver.label, for: request)
            }
            let parameters = try await OAuthParameters.parse(request)
            let answer = try await receiver.dataDeletion(payload: try parameters.optional(receiver.payloadField), logger: context.logger)
            return try Self.json(DataDeletionAnswer(url: answer.url, confirmationCode: answer.confirmationCode))
        }
    }

    private func receiver(_ context: IssuerRequestContext) throws -> any ProviderCallbackConnector {
        let name = context.parameters.get("provider") ?? ""
        guard let receiver = callbacks[name] else {
            throw OAuthError(.invalidRequest, "No provider called \(name.prefix(32)) sends callbacks here.", status: 404)
        }
        return receiver
    }

    private static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(value))))
    }

    private struct EmptyAnswer: Encodable {}

    private struct DataDeletionAnswer: Encodable {
        let url: String
        let confirmationCode: String

        enum CodingKeys: String, CodingKey {
            case url
            case confirmationCode = "confirmation_code"
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "Google's account-protection events", `POST /auth/google/risc`: Google's Cross-Account Protection
/// receiver. The body is the security event token itself (RFC 8935 §2: `application/secevent+jwt`,
/// though any type is read), at most 64 KiB. `202` once applied (or when there is nothing to
/// apply); a token that fails verification, `400` with RFC 8935 §2.4's `{"err", "description"}`;
/// `503` when Google's keys cannot be had, so that Google delivers it again. Not rate limited:
/// Google is the caller. Registered only when a provider of kind `google` is configured.
struct GoogleRISCEndpoint {
    let receiver: GoogleRISC

    func register(on routes: RouteRegistrar) {
        routes.add(.googleRISC) { request, context in
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: Route.googleRISC.maximumBodySize)
            } catch {
                return Self.refusal(SecurityEventError(.invalidRequest, "The request body is larger than 64 KiB."), status: .contentTooLarge)
            }
            let token = String(decoding: body.readableBytesView, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            do throws(GoogleRISC.Failure) {
                try await receiver.receive(token: token, logger: context.logger)
            } catch {
                switch error {
                case .refused(let refusal): return Self.refusal(refusal, status: .badRequest)
                case .failed(let failure): throw failure
                }
            }
            return Response(status: .accepted, headers: [.cacheControl: "no-store"])
        }
    }

    /// RFC 8935 §2.4: `{"err": …, "description": …}`; nothing was applied.
    static func refusal(_ error: SecurityEventError, status: HTTPResponse.Status) -> Response {
        let body = (try? JSONEncoder.oauth.encode(["err": error.code.rawValue, "description": error.description])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

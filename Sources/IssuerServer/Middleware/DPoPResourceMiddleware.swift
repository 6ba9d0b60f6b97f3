import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// docs/reference.md, "DPoP", at the endpoints that take our access tokens (RFC 9449 §7): one
/// request step for all of them rather than a check in each. A token bound to a key (`cnf.jkt`)
/// must come as `Authorization: DPoP <token>` with a proof from that key whose `ath` is the
/// token's hash; it is then handed on as a bearer token, whose own checks (signature, session)
/// the endpoint makes as before. A bound token sent as `Bearer` is refused with RFC 9449's
/// challenge. Unbound bearer tokens, and requests without credentials, pass untouched.
struct DPoPResourceMiddleware: RouterMiddleware {
    let proofs: DPoPProofCheck
    let verifier: AccessTokenVerifier
    let ring: @Sendable () -> KeyRing
    /// The path of `ISSUER_URL`, which the routes are served under and `htu` does not repeat.
    let pathPrefix: String

    func handle(
        _ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response
    ) async throws -> Response {
        guard context.route?.takesAccessTokens == true, let authorization = request.headers[.authorization] else {
            return try await next(request, context)
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return try await next(request, context) }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        switch parts[0].lowercased() {
        case "bearer":
            guard boundKey(token) == nil else {
                return Self.challenge("invalid_token", "The access token is bound to a DPoP key: send it as DPoP with a proof.")
            }
            return try await next(request, context)
        case "dpop":
            guard let key = boundKey(token) else {
                return Self.challenge("invalid_token", "The access token is invalid or not bound to a DPoP key.")
            }
            switch await proof(for: request, accessToken: token) {
            case .failure(let error) where error.code == .invalidDPoPProof:
                return Self.challenge("invalid_dpop_proof", error.description)
            case .failure(let error):
                throw error
            case .success(let proof) where proof.thumbprint != key:
                return Self.challenge("invalid_token", "The DPoP proof is not from the key the access token is bound to.")
            case .success:
                break
            }
            var head = request.head
            head.headerFields[.authorization] = "Bearer " + token
            return try await next(Request(head: head, body: request.body), context)
        default:
            return try await next(request, context)
        }
    }

    /// The request's one proof, checked for `accessToken`; a request without one is
    /// `invalid_dpop_proof` too.
    private func proof(for request: Request, accessToken: String) async -> Result<DPoPProof, OAuthError> {
        do throws(OAuthError) {
            let proof = try await proofs.check(
                request.headers[values: .dpop], method: request.method.rawValue, path: path(request),
                accessToken: accessToken)
            guard let proof else { return .failure(.invalidDPoPProof("A DPoP access token needs a DPoP proof.")) }
            return .success(proof)
        } catch {
            return .failure(error)
        }
    }

    /// The `cnf.jkt` of a token that verifies; nil for an unbound or invalid one (an invalid
    /// token is refused by the endpoint's own check, as it always was).
    private func boundKey(_ token: String) -> String? {
        (try? verifier.verify(token, ring: ring()))?.confirmation?.jkt
    }

    /// The request's path under `ISSUER_URL`, what `htu` names after it.
    private func path(_ request: Request) -> String {
        let path = request.uri.path
        return !pathPrefix.isEmpty && path.hasPrefix(pathPrefix) ? String(path.dropFirst(pathPrefix.count)) : path
    }

    /// RFC 9449 §7.1: `401` with a `DPoP` challenge naming the error.
    static func challenge(_ error: String, _ description: String) -> Response {
        let body = (try? JSONEncoder.oauth.encode(["error": error, "error_description": description])) ?? Data()
        return Response(
            status: .unauthorized,
            headers: [
                .wwwAuthenticate: #"DPoP error="\#(error)", algs="ES256 RS256""#, .contentType: "application/json",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

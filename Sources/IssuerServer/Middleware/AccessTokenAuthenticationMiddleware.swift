import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore

/// The one authentication step of the endpoints that take our access tokens (`Route.takesAccessTokens`:
/// `/userinfo` and the account endpoints, docs/reference.md "UserInfo", "Two proofs of one
/// session" and "DPoP"): it reads `Authorization`, verifies the access token once, and puts the
/// verified bearer on the request context (`IssuerRequestContext.bearer`), which the endpoint and
/// the second proof read instead of verifying the token again.
///
/// - No credentials (no header, another scheme, an empty token): a bare `401` with
///   `WWW-Authenticate: Bearer` (RFC 6750 §3.1, no error code).
/// - `Bearer <token>`: a token bound to a key (`cnf.jkt`) is refused with RFC 9449 §7.1's DPoP
///   challenge; any other bad token is `401 invalid_token` (RFC 6750 §3.1).
/// - `DPoP <token>` (RFC 9449 §7): the token must verify and be bound, and the request carry one
///   proof from that key whose `ath` is the token's hash; each refusal is a DPoP challenge.
///
/// A method the route does not serve gets its `405`, with only the DPoP binding enforced first.
struct AccessTokenAuthenticationMiddleware: RouterMiddleware {
    let proofs: DPoPProofCheck
    let verifier: AccessTokenVerifier
    let ring: @Sendable () -> KeyRing
    /// The path of `ISSUER_URL`, which the routes are served under and `htu` does not repeat.
    let pathPrefix: String

    func handle(
        _ request: Request, context: IssuerRequestContext, next: (Request, IssuerRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let route = context.route, route.takesAccessTokens else { return try await next(request, context) }
        let served = RouteRegistrar.allowed(route).contains(request.method)
        // RFC 6750 §2.1 and RFC 9449 §7.1: `<scheme> <token>`, the scheme case-insensitive.
        guard let authorization = request.headers[.authorization] else {
            return served ? Self.credentialsChallenge : try await next(request, context)
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        let scheme = parts.count == 2 ? parts[0].lowercased() : ""
        let token = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        guard scheme == "bearer" || scheme == "dpop" else {
            return served ? Self.credentialsChallenge : try await next(request, context)
        }
        let verified: Result<AccessTokenClaims, AccessTokenVerificationError>
        do throws(AccessTokenVerificationError) {
            verified = .success(try verifier.verify(token, ring: ring()))
        } catch {
            verified = .failure(error)
        }
        let boundKey = (try? verified.get())?.confirmation?.jkt
        if scheme == "bearer" {
            guard boundKey == nil else {
                return Self.challenge("invalid_token", "The access token is bound to a DPoP key: send it as DPoP with a proof.")
            }
            guard !token.isEmpty else { return served ? Self.credentialsChallenge : try await next(request, context) }
        } else {
            guard let boundKey else {
                return Self.challenge("invalid_token", "The access token is invalid or not bound to a DPoP key.")
            }
            switch await proof(for: request, accessToken: token) {
            case .failure(let error) where error.code == .invalidDPoPProof:
                return Self.challenge("invalid_dpop_proof", error.description)
            case .failure(let error):
                throw error
            case .success(let proof) where proof.thumbprint != boundKey:
                return Self.challenge("invalid_token", "The DPoP proof is not from the key the access token is bound to.")
            case .success:
                break
            }
        }
        guard served else { return try await next(request, context) }
        var context = context
        context.bearer = try AccessTokenVerifier.Bearer(verified: verified)
        return try await next(request, context)
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

    /// The request's path under `ISSUER_URL`, what `htu` names after it.
    private func path(_ request: Request) -> String {
        let path = request.uri.path
        return !pathPrefix.isEmpty && path.hasPrefix(pathPrefix) ? String(path.dropFirst(pathPrefix.count)) : path
    }

    /// RFC 6750 §3.1: a request without credentials gets a bare `Bearer` challenge, no error code.
    static let credentialsChallenge = Response(
        status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .cacheControl: "no-store"])

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

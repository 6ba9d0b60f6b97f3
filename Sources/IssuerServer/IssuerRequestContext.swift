import Hummingbird
import IssuerCore
import NIOCore

/// The request context of every route: Hummingbird's core storage, the peer address, what
/// `RouteResolutionMiddleware` resolves once per request (the matched route and the client IP),
/// and what the authentication step proves on the routes that take our access tokens.
public struct IssuerRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird `RequestContext` storage (logger, route parameters, …).
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer: the client, or the proxy in front of it.
    public let remoteAddress: SocketAddress?
    /// The route the router matched (nil when none did), for the policies of the route table.
    var route: Route?
    /// The client's IP, through `ISSUER_TRUSTED_PROXIES` (nil without a TCP peer, as in
    /// in-process tests).
    public internal(set) var clientIP: String?
    /// The access token, verified once by `AccessTokenAuthenticationMiddleware` on the routes that
    /// take one (`Route.takesAccessTokens`); read through `requireBearer()`.
    var bearer: AccessTokenVerifier.Bearer?
    /// The session both proofs name, proven by `SessionProofMiddleware` on the requests that
    /// change an account (`Route.sessionProofFields`); read through `requireSession()`.
    var session: ProvenSession?

    /// Hummingbird builds one per request from its channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// docs/reference.md, "Faults and bad input": request bodies are bounded by the matched route
    /// (`Route.maximumRequestBodySize`).
    public var maxUploadSize: Int { route?.maximumBodySize ?? Route.maximumRequestBodySize }
}

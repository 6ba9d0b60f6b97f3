import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core storage plus the peer address, from
/// which the client IP is taken (through `ISSUER_TRUSTED_PROXIES`).
public struct IssuerRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird `RequestContext` storage (logger, route parameters, …).
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer: the client, or the proxy in front of it.
    public let remoteAddress: SocketAddress?

    /// Hummingbird builds one per request from its channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// SPEC §7: bodies over 64 KiB are refused.
    public var maxUploadSize: Int { 64 * 1024 }
}

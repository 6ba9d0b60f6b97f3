import IssuerCore
import Logging

/// The domain services the endpoints call, wired from the dependencies once per application.
struct IssuerServices: Sendable {
    let appleExchange: IdentityExchange

    init(_ dependencies: IssuerDependencies, keys: KeyRingMonitor) {
        let configuration = dependencies.configuration
        let metrics = dependencies.metrics
        let appleKeys = RemoteJWKSCache(
            url: configuration.appleJWKSURL, fetcher: dependencies.jwksFetcher, clock: dependencies.clock,
            logger: dependencies.logger, onFetch: { metrics.recordJWKSFetch(provider: "apple", succeeded: $0) })
        let verifier = IdentityTokenVerifier(
            provider: .apple(jwksURL: configuration.appleJWKSURL), keys: appleKeys, clock: dependencies.clock)
        let issuer = TokenIssuer(
            minter: TokenMinter(configuration: configuration, clock: dependencies.clock),
            ring: { keys.current.ring })
        appleExchange = IdentityExchange(
            verifier: verifier, audiences: configuration.appleClientIDs.map(Set.init),
            requireNonce: configuration.appleRequireNonce, clients: configuration.clients,
            store: SignInStore(
                pool: dependencies.pool, clock: dependencies.clock,
                refreshTokenTTL: configuration.refreshTokenTTL, sessionMaxAge: configuration.sessionMaxAge),
            issuer: issuer, logger: dependencies.logger)
    }
}

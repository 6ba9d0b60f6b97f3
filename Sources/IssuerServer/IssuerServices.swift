import IssuerCore
import Logging

/// The domain services the endpoints call, wired from the dependencies once per application.
struct IssuerServices: Sendable {
    let appleExchange: IdentityExchange
    let refresh: RefreshTokenGrant
    let revocation: TokenRevocation
    let userInfo: UserInfoService

    init(_ dependencies: IssuerDependencies, keys: KeyRingMonitor) {
        let configuration = dependencies.configuration
        let metrics = dependencies.metrics
        let clock = dependencies.clock
        let logger = dependencies.logger
        let ring: @Sendable () -> KeyRing = { keys.current.ring }
        let appleKeys = RemoteJWKSCache(
            url: configuration.appleJWKSURL, fetcher: dependencies.jwksFetcher, clock: clock,
            logger: logger, onFetch: { metrics.recordJWKSFetch(provider: "apple", succeeded: $0) })
        let verifier = IdentityTokenVerifier(provider: .apple(jwksURL: configuration.appleJWKSURL), keys: appleKeys, clock: clock)
        let issuer = TokenIssuer(minter: TokenMinter(configuration: configuration, clock: clock), ring: ring)
        let sessions = SessionRevocation(pool: dependencies.pool)
        let accessTokens = AccessTokenVerifier(configuration: configuration, clock: clock)

        appleExchange = IdentityExchange(
            verifier: verifier, audiences: configuration.appleClientIDs.map(Set.init),
            noncePolicy: NoncePolicy(
                required: configuration.appleRequireNonce, acceptUnhashed: configuration.appleAcceptUnhashedNonce),
            clients: configuration.clients,
            store: SignInStore(
                pool: dependencies.pool, clock: clock,
                refreshTokenTTL: configuration.refreshTokenTTL, sessionMaxAge: configuration.sessionMaxAge),
            issuer: issuer)
        refresh = RefreshTokenGrant(
            store: RefreshRotationStore(pool: dependencies.pool), revocation: sessions, clients: configuration.clients,
            secret: dependencies.serverSecret, issuer: issuer, clock: clock,
            refreshTokenTTL: configuration.refreshTokenTTL, grace: configuration.refreshReuseGrace,
            onReuse: { metrics.recordRefreshReuse() })
        revocation = TokenRevocation(
            revocation: sessions, clients: configuration.clients, verifier: accessTokens, ring: ring, clock: clock)
        userInfo = UserInfoService(pool: dependencies.pool, verifier: accessTokens, ring: ring, clock: clock)
    }
}

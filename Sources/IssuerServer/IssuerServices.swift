import IssuerCore
import IssuerStorage
import Logging

/// The domain services the endpoints call, wired from the dependencies once per application.
struct IssuerServices: Sendable {
    /// docs/reference.md, "Native sign-in": Apple's exchange and every configured provider's.
    let exchanges: ProviderExchanges
    /// Apple's, configured from `ISSUER_APPLE_*`, for the route the reference fixes for it.
    let appleExchange: IdentityExchange
    let refresh: RefreshTokenGrant
    /// docs/reference.md, "DPoP": every token request's proof, checked before its grant runs.
    let dpop: DPoPProofCheck
    /// Our access tokens' verifier: the revocation endpoint's and the routes' authentication step's.
    let accessTokens: AccessTokenVerifier
    let revocation: TokenRevocation
    let userInfo: UserInfoService
    /// docs/reference.md, "Hosted sign-in": the hosted Authorization Code flow, its code grant, and the logout (docs/reference.md, "Sign-out").
    let hostedSignIn: HostedSignIn
    let authorizationCode: AuthorizationCodeGrant
    let endSession: EndSession
    /// docs/reference.md, "Apple token custody": Apple code redemption and token custody; the hosted callback calls it too.
    let appleCustody: AppleTokenCustody
    let appleRevocations: AppleRevocationQueue
    /// docs/reference.md, "Account deletion": the notices providers get of a deletion (Facebook's permissions removed).
    let deletionNotices: DeletionNoticeQueue
    /// docs/reference.md, "Two proofs of one session": the second proof of every account change.
    let sessionProof: SessionProof
    let accounts: AccountService
    /// docs/reference.md, "Signed-in devices".
    let accountSessions: AccountSessions
    /// docs/reference.md, "Linked identities".
    let accountIdentities: AccountIdentities
    let appleNotifications: AppleNotifications
    /// docs/reference.md, "Google's account-protection events": nil unless a provider of kind `google` is configured.
    let googleRISC: GoogleRISC?
    /// docs/reference.md, "Facebook's callbacks": by provider id, for each provider of kind `facebook`.
    let providerCallbacks: [String: any ProviderCallbackConnector]

    init(_ dependencies: IssuerDependencies, keys: KeyRingMonitor) {
        let configuration = dependencies.configuration
        let metrics = dependencies.metrics
        let clock = dependencies.clock
        let logger = dependencies.logger
        let ring: @Sendable () -> KeyRing = { keys.current.ring }
        let appleKeys = RemoteJWKSCache(
            url: configuration.appleJWKSURL, fetcher: dependencies.jwksFetcher, clock: clock,
            logger: logger, name: "apple", events: metrics)
        let verifier = IdentityTokenVerifier(provider: .apple, keys: appleKeys, clock: clock)
        let issuerURL = configuration.issuerURL.absoluteString
        let responder = TokenResponder(
            signer: TokenSigner(
                issuer: issuerURL, audience: configuration.audience,
                accessTokenTTL: configuration.accessTokenTTL, idTokenTTL: configuration.idTokenTTL, clock: clock),
            ring: ring)
        // Stores are built here and handed to the services that use them (docs/design.md, "PostgreSQL through libpq").
        let pool = dependencies.pool
        let sessions = SessionRevocationStore(pool: pool)
        accessTokens = AccessTokenVerifier(issuer: issuerURL, audience: configuration.audience, clock: clock)
        let vault = AppleTokenVault(secret: dependencies.serverSecret)
        let appleAPI = Self.appleAPI(dependencies)
        appleRevocations = AppleRevocationQueue(
            store: AppleRevocationStore(pool: pool), vault: vault, api: appleAPI, clock: clock, events: metrics)
        appleCustody = AppleTokenCustody(
            store: AppleCustodyStore(pool: pool), vault: vault, api: appleAPI, verifier: verifier, revocations: appleRevocations, clock: clock,
            events: metrics)
        sessionProof = SessionProof(
            store: SessionProofStore(pool: pool), revocation: sessions,
            secret: dependencies.serverSecret, clock: clock, grace: configuration.refreshReuseGrace, events: metrics)
        accountSessions = AccountSessions(store: AccountSessionsStore(pool: pool), clock: clock)
        // docs/design.md, "Connectors": each provider of kind `facebook`'s connector, built once
        // for its sign-ins, its callbacks and what a deletion tells it.
        let facebooks = Dictionary(
            configuration.providers.providers.filter { $0.kind == .facebook }.map { ($0.id, Self.facebook($0, dependencies)) },
            uniquingKeysWith: { first, _ in first })
        deletionNotices = DeletionNoticeQueue(
            store: DeletionNoticeStore(pool: pool), connectors: facebooks.map { FacebookAccountDeletion(provider: $0.key, graph: $0.value.graph) },
            clock: clock)
        accounts = AccountService(
            deletion: AccountDeletion(
                store: AccountDeletionStore(pool: pool, noticeProviders: deletionNotices.providers), clock: clock,
                revocations: appleRevocations, events: metrics))
        // docs/design.md, "Security events": one pipeline under every provider's decoder.
        let securityEvents = SecurityEventPipeline(
            store: SecurityEventStore(pool: pool, noticeProviders: deletionNotices.providers), clock: clock, events: metrics)
        // docs/reference.md, "Apple notifications": the same verifier, and so the same cache of Apple's keys, as the exchange.
        appleNotifications = AppleNotifications(
            verifier: verifier,
            audiences: Set((configuration.appleClientIDs ?? []) + (configuration.appleServicesID.map { [$0] } ?? [])),
            pipeline: securityEvents, clock: clock, events: metrics)

        let signIns = SignInStore(
            pool: pool, clock: clock,
            refreshTokenTTL: configuration.refreshTokenTTL, sessionMaxAge: configuration.sessionMaxAge,
            emailLinking: EmailLinking(configuration))
        let appleExchange = IdentityExchange(
            connector: AppleNativeCredential(
                verifier: verifier, audiences: configuration.appleClientIDs.map(Set.init),
                noncePolicy: NoncePolicy(
                    required: configuration.appleRequireNonce, acceptUnhashed: configuration.appleAcceptUnhashedNonce),
                custody: appleCustody),
            clients: configuration.clients, store: signIns, responder: responder, events: metrics)
        // docs/reference.md, "Google and other OpenID providers": each provider is the same
        // verifier and key cache, configured by its settings, its keys found through its
        // discovery document unless configured; the native exchange and the hosted flow share them.
        let base = issuerURL.hasSuffix("/") ? String(issuerURL.dropLast()) : issuerURL
        var providerExchanges: [IdentityExchange] = []
        var hostedProviders: [any HostedFlowConnector] = []
        var callbacks: [String: any ProviderCallbackConnector] = [:]
        for settings in configuration.providers.providers {
            if let facebook = facebooks[settings.id] {
                providerExchanges.append(IdentityExchange(
                    connector: facebook.native, clients: configuration.clients, store: signIns, responder: responder, events: metrics))
                hostedProviders.append(FacebookHostedFlow(
                    id: settings.id, settings: settings, callbackURL: base + "/auth/\(settings.id)/callback", credential: facebook.native,
                    transport: dependencies.formPoster))
                callbacks[settings.id] = FacebookCallbacks(
                    provider: settings.id, appSecret: settings.clientSecret ?? Secret(""), pipeline: securityEvents,
                    requests: DataDeletionRequestStore(pool: pool), serverSecret: dependencies.serverSecret,
                    statusURL: base + "/auth/\(settings.id)/data-deletion", clock: clock, events: metrics)
                continue
            }
            let endpoints = ProviderEndpoints(settings: settings, fetcher: dependencies.jwksFetcher, clock: clock, logger: logger)
            let keys = RemoteJWKSCache(
                source: settings.jwksURI?.absoluteString ?? "the jwks_uri of \(settings.issuer)",
                locate: { try await endpoints.resolve().jwksURI }, fetcher: dependencies.jwksFetcher, clock: clock, logger: logger,
                name: settings.id, events: metrics)
            let providerVerifier = IdentityTokenVerifier(provider: IdentityProvider(settings), keys: keys, clock: clock)
            providerExchanges.append(IdentityExchange(
                connector: OIDCNativeCredential(
                    verifier: providerVerifier, audiences: settings.nativeAudiences.isEmpty ? nil : Set(settings.nativeAudiences),
                    noncePolicy: NoncePolicy()),
                clients: configuration.clients, store: signIns, responder: responder, events: metrics))
            if let clientID = settings.clientID, let secret = settings.clientSecret {
                hostedProviders.append(OIDCHostedFlow(
                    name: settings.id, clientID: clientID, clientSecret: secret, scopes: settings.scopes,
                    callbackURL: base + "/auth/\(settings.id)/callback", endpoints: endpoints, verifier: providerVerifier,
                    transport: dependencies.formPoster, kind: settings.kind))
            }
        }
        self.appleExchange = appleExchange
        exchanges = ProviderExchanges([appleExchange] + providerExchanges)
        providerCallbacks = callbacks
        accountIdentities = AccountIdentities(
            exchanges: exchanges, store: AccountIdentitiesStore(pool: pool, noticeProviders: deletionNotices.providers),
            revocations: appleRevocations, clock: clock, events: metrics)
        googleRISC = Self.googleRISC(dependencies, pipeline: securityEvents)
        dpop = DPoPProofCheck(
            replays: DPoPReplayStore(pool: pool), clock: clock, issuerURL: issuerURL,
            nonces: configuration.dpopNonce ? DPoPNonces(secret: dependencies.serverSecret, clock: clock) : nil)
        refresh = RefreshTokenGrant(
            stores: RefreshGrantStores(rotation: RefreshRotationStore(pool: pool), revocation: sessions), clients: configuration.clients,
            secret: dependencies.serverSecret, responder: responder, clock: clock,
            refreshTokenTTL: configuration.refreshTokenTTL, grace: configuration.refreshReuseGrace,
            events: metrics)
        revocation = TokenRevocation(
            revocation: sessions, clients: configuration.clients, verifier: accessTokens, ring: ring, clock: clock)
        userInfo = UserInfoService(users: UserStore(pool: pool), clock: clock)

        // docs/design.md, "Connectors": the hosted flow's connectors, Apple first (from
        // `ISSUER_APPLE_*`), then each provider of the providers file with a client of its own.
        var hostedConnectors: [any HostedFlowConnector] = []
        if let servicesID = configuration.appleServicesID {
            hostedConnectors.append(AppleHostedFlow(
                servicesID: servicesID, authorizeURL: configuration.appleAuthorizeURL.absoluteString,
                callbackURL: base + Route.appleCallback.path, verifier: verifier, custody: appleCustody))
        }
        hostedSignIn = HostedSignIn(
            connectors: hostedConnectors + hostedProviders, issuer: issuerURL, clients: configuration.clients,
            sealer: AuthorizationStateSealer(secret: dependencies.serverSecret, clock: clock), store: signIns, clock: clock,
            events: metrics)
        authorizationCode = AuthorizationCodeGrant(
            store: AuthorizationCodeStore(pool: pool), clients: configuration.clients, responder: responder, clock: clock,
            refreshTokenTTL: configuration.refreshTokenTTL)
        endSession = EndSession(issuer: issuerURL, clients: configuration.clients, ring: ring, revocation: sessions, clock: clock)
    }

    /// docs/reference.md, "Google's account-protection events": the receiver for every provider of kind `google`, its tokens
    /// verified through a cache of the keys at `risc_jwks_uri` (the first provider's, Google's
    /// published one unless set), kept by the rules of every remote key set.
    static func googleRISC(_ dependencies: IssuerDependencies, pipeline: SecurityEventPipeline) -> GoogleRISC? {
        let google = dependencies.configuration.providers.providers.filter { $0.kind == .google }
        guard let first = google.first else { return nil }
        let metrics = dependencies.metrics
        let keys = RemoteJWKSCache(
            url: first.riscJWKSURI ?? ProviderSettings.Google.riscJWKSURI, fetcher: dependencies.jwksFetcher,
            clock: dependencies.clock, logger: dependencies.logger,
            name: "google_risc", events: metrics)
        return GoogleRISC(
            verifier: IdentityTokenVerifier(provider: GoogleRISC.identityProvider, keys: keys, clock: dependencies.clock),
            providers: google.map(GoogleRISC.Provider.init), pipeline: pipeline, clock: dependencies.clock,
            events: metrics)
    }

    /// A provider of kind `facebook`'s connector (docs/reference.md, "Facebook"): its keys at the
    /// pinned `jwks_uri`, never from a discovery document, and its Graph API.
    static func facebook(_ settings: ProviderSettings, _ dependencies: IssuerDependencies) -> (native: FacebookNativeCredential, graph: FacebookGraph) {
        let keys = RemoteJWKSCache(
            url: settings.jwksURI ?? ProviderSettings.Facebook.jwksURI, fetcher: dependencies.jwksFetcher, clock: dependencies.clock,
            logger: dependencies.logger, name: settings.id, events: dependencies.metrics)
        let appID = settings.clientID ?? ""
        let graph = FacebookGraph(
            appID: appID, appSecret: settings.clientSecret ?? Secret(""), graphURL: settings.graphURL ?? ProviderSettings.Facebook.graphURL,
            graphVersion: settings.graphVersion ?? ProviderSettings.Facebook.graphVersion, transport: dependencies.remoteRequester,
            clock: dependencies.clock)
        let verifier = IdentityTokenVerifier(provider: IdentityProvider(settings), keys: keys, clock: dependencies.clock)
        return (FacebookNativeCredential(verifier: verifier, graph: graph, appID: appID), graph)
    }

    /// Apple's token and revoke endpoints with the configured credentials; nil without them
    /// (docs/reference.md, "Configuration": codes are then not redeemed).
    static func appleAPI(_ dependencies: IssuerDependencies) -> AppleTokenAPI? {
        let configuration = dependencies.configuration
        return configuration.appleCredentials.map {
            AppleTokenAPI(
                credentials: $0, transport: dependencies.formPoster,
                tokenURL: configuration.appleTokenURL, revokeURL: configuration.appleRevokeURL,
                migrationURL: configuration.appleMigrationURL, clock: dependencies.clock)
        }
    }
}

import ArgumentParser

/// One flag per setting (docs/reference.md, "Configuration") (`--port` for `ISSUER_PORT`). Values stay strings here:
/// `Configuration` validates flags and environment alike, so both fail with the same one-line
/// message naming the setting.
struct SettingsOptions: ParsableArguments {
    @Option(name: .customLong("url"), help: ArgumentHelp("the issuer URL: the `iss` of every token; its path prefixes every route (default http://127.0.0.1:8080)", valueName: "ISSUER_URL"))
    var url: String?

    @Option(name: .customLong("host"), help: ArgumentHelp("address to listen on (default 127.0.0.1)", valueName: "ISSUER_HOST"))
    var host: String?

    @Option(name: .customLong("port"), help: ArgumentHelp("port to listen on (default 8080)", valueName: "ISSUER_PORT"))
    var port: String?

    @Option(name: .customLong("ops-host"), help: ArgumentHelp("address of the management listener (default: the --host address)", valueName: "ISSUER_OPS_HOST"))
    var opsHost: String?

    @Option(name: .customLong("ops-port"), help: ArgumentHelp("serve /healthz, /readyz and /metrics only on this port (default: unset, on the main listener)", valueName: "ISSUER_OPS_PORT"))
    var opsPort: String?

    @Option(name: .customLong("database-url"), help: ArgumentHelp("libpq connection URI; unset: the embedded PostgreSQL under .data/postgres", valueName: "ISSUER_DATABASE_URL"))
    var databaseUrl: String?

    @Option(name: .customLong("database-url-file"), help: ArgumentHelp("read the database URL from this file (one trailing newline stripped); keeps it off the command line", valueName: "ISSUER_DATABASE_URL_FILE"))
    var databaseUrlFile: String?

    @Option(name: .customLong("database-pool-size"), help: ArgumentHelp("database connections per process (default 8)", valueName: "ISSUER_DATABASE_POOL_SIZE"))
    var databasePoolSize: String?

    @Option(name: .customLong("keys-dir"), help: ArgumentHelp("the signing key ring directory (default ./keys)", valueName: "ISSUER_KEYS_DIR"))
    var keysDir: String?

    @Option(name: .customLong("keys-reload-seconds"), help: ArgumentHelp("how often the key ring is re-read (default 5)", valueName: "ISSUER_KEYS_RELOAD_SECONDS"))
    var keysReloadSeconds: String?

    @Option(name: .customLong("audience"), help: ArgumentHelp("`aud` of access tokens (default clanboards-mobile)", valueName: "ISSUER_AUDIENCE"))
    var audience: String?

    @Option(name: .customLong("clients-file"), help: ArgumentHelp("JSON client registry; unset: the built-in clanboards-mobile client", valueName: "ISSUER_CLIENTS_FILE"))
    var clientsFile: String?

    @Option(name: .customLong("providers-file"), help: ArgumentHelp("JSON list of OpenID providers beside Apple (Google, oidc); unset: Apple only", valueName: "ISSUER_PROVIDERS_FILE"))
    var providersFile: String?

    @Option(name: .customLong("apple-client-ids"), help: ArgumentHelp("comma-separated Apple audiences (iOS bundle IDs) for the native exchange", valueName: "ISSUER_APPLE_CLIENT_IDS"))
    var appleClientIds: String?

    @Option(name: .customLong("apple-services-id"), help: ArgumentHelp("Apple Services ID for the hosted web flow", valueName: "ISSUER_APPLE_SERVICES_ID"))
    var appleServicesId: String?

    @Option(name: .customLong("apple-jwks-url"), help: ArgumentHelp("Apple's JWKS (default https://appleid.apple.com/auth/keys)", valueName: "ISSUER_APPLE_JWKS_URL"))
    var appleJwksUrl: String?

    @Option(name: .customLong("apple-authorize-url"), help: ArgumentHelp("Apple's authorize endpoint (default https://appleid.apple.com/auth/authorize)", valueName: "ISSUER_APPLE_AUTHORIZE_URL"))
    var appleAuthorizeUrl: String?

    @Option(name: .customLong("apple-require-nonce"), help: ArgumentHelp("refuse exchanges without a nonce: true or false (default false)", valueName: "ISSUER_APPLE_REQUIRE_NONCE"))
    var appleRequireNonce: String?

    @Option(name: .customLong("apple-accept-unhashed-nonce"), help: ArgumentHelp("also accept an Apple token whose nonce claim is the raw nonce (weaker): true or false (default false)", valueName: "ISSUER_APPLE_ACCEPT_UNHASHED_NONCE"))
    var appleAcceptUnhashedNonce: String?

    @Option(name: .customLong("apple-link-by-verified-email"), help: ArgumentHelp("let Apple's verified, non-relay addresses take part in linking by e-mail: true or false (default false)", valueName: "ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL"))
    var appleLinkByVerifiedEmail: String?

    @Option(name: .customLong("access-token-ttl"), help: ArgumentHelp("access token lifetime in seconds (default 3600)", valueName: "ISSUER_ACCESS_TOKEN_TTL"))
    var accessTokenTtl: String?

    @Option(name: .customLong("id-token-ttl"), help: ArgumentHelp("ID token lifetime in seconds (default 3600)", valueName: "ISSUER_ID_TOKEN_TTL"))
    var idTokenTtl: String?

    @Option(name: .customLong("refresh-token-ttl"), help: ArgumentHelp("refresh token lifetime in seconds (default 2592000)", valueName: "ISSUER_REFRESH_TOKEN_TTL"))
    var refreshTokenTtl: String?

    @Option(name: .customLong("session-max-age"), help: ArgumentHelp("longest a session lives, in seconds (default 7776000)", valueName: "ISSUER_SESSION_MAX_AGE"))
    var sessionMaxAge: String?

    @Option(name: .customLong("refresh-reuse-grace"), help: ArgumentHelp("seconds a rotated refresh token is still honoured as a retry (default 10)", valueName: "ISSUER_REFRESH_REUSE_GRACE"))
    var refreshReuseGrace: String?

    @Option(name: .customLong("dpop-nonce"), help: ArgumentHelp("require server nonces in DPoP proofs at the token endpoints: on or off (default off)", valueName: "ISSUER_DPOP_NONCE"))
    var dpopNonce: String?

    @Option(name: .customLong("secret"), help: ArgumentHelp("base64 server secret of 32+ bytes; unset: generated once and kept in the database", valueName: "ISSUER_SECRET"))
    var secret: String?

    @Option(name: .customLong("secret-file"), help: ArgumentHelp("read the server secret from this file (one trailing newline stripped); keeps it off the command line", valueName: "ISSUER_SECRET_FILE"))
    var secretFile: String?

    @Option(name: .customLong("migrations-dir"), help: ArgumentHelp("read migrations from this directory instead of the built-in ones", valueName: "ISSUER_MIGRATIONS_DIR"))
    var migrationsDir: String?

    @Option(name: .customLong("trusted-proxies"), help: ArgumentHelp("comma-separated CIDRs whose X-Forwarded-For is believed", valueName: "ISSUER_TRUSTED_PROXIES"))
    var trustedProxies: String?

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp("per-IP allowance like '20/s burst 40', or 'off' (default 20/s burst 40)", valueName: "ISSUER_RATE_LIMIT"))
    var rateLimit: String?

    @Option(name: .customLong("apple-team-id"), help: ArgumentHelp("Apple developer team ID", valueName: "ISSUER_APPLE_TEAM_ID"))
    var appleTeamId: String?

    @Option(name: .customLong("apple-key-id"), help: ArgumentHelp("Apple Sign in key ID", valueName: "ISSUER_APPLE_KEY_ID"))
    var appleKeyId: String?

    @Option(name: .customLong("apple-private-key-file"), help: ArgumentHelp("Apple Sign in private key (.p8)", valueName: "ISSUER_APPLE_PRIVATE_KEY_FILE"))
    var applePrivateKeyFile: String?

    @Option(name: .customLong("apple-token-url"), help: ArgumentHelp("Apple's token endpoint (default https://appleid.apple.com/auth/token)", valueName: "ISSUER_APPLE_TOKEN_URL"))
    var appleTokenUrl: String?

    @Option(name: .customLong("apple-revoke-url"), help: ArgumentHelp("Apple's revoke endpoint (default https://appleid.apple.com/auth/revoke)", valueName: "ISSUER_APPLE_REVOKE_URL"))
    var appleRevokeUrl: String?

    @Option(name: .customLong("apple-migration-url"), help: ArgumentHelp("Apple's usermigrationinfo endpoint, for a team transfer (default https://appleid.apple.com/auth/usermigrationinfo)", valueName: "ISSUER_APPLE_MIGRATION_URL"))
    var appleMigrationUrl: String?

    @Option(name: .customLong("display-name"), help: ArgumentHelp("the name the sign-in pages show for a client without client_name (default: none)", valueName: "ISSUER_DISPLAY_NAME"))
    var displayName: String?

    @Option(name: .customLong("pages-dir"), help: ArgumentHelp("directory of theme.json, messages/<language>.json and logos for the sign-in pages (default: the built-in look)", valueName: "ISSUER_PAGES_DIR"))
    var pagesDir: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical (default info)", valueName: "ISSUER_LOG_LEVEL"))
    var logLevel: String?

    @Option(name: .customLong("log-format"), help: ArgumentHelp("text or json (default text)", valueName: "ISSUER_LOG_FORMAT"))
    var logFormat: String?

    @OptionGroup var environmentFile: EnvironmentFileOption

    /// The flags that were given, keyed by their environment variable.
    var overrides: [String: String] {
        let pairs: [(String, String?)] = [
            ("ISSUER_URL", url),
            ("ISSUER_HOST", host),
            ("ISSUER_PORT", port),
            ("ISSUER_OPS_HOST", opsHost),
            ("ISSUER_OPS_PORT", opsPort),
            ("ISSUER_DATABASE_URL", databaseUrl),
            ("ISSUER_DATABASE_URL_FILE", databaseUrlFile),
            ("ISSUER_DATABASE_POOL_SIZE", databasePoolSize),
            ("ISSUER_KEYS_DIR", keysDir),
            ("ISSUER_KEYS_RELOAD_SECONDS", keysReloadSeconds),
            ("ISSUER_AUDIENCE", audience),
            ("ISSUER_CLIENTS_FILE", clientsFile),
            ("ISSUER_PROVIDERS_FILE", providersFile),
            ("ISSUER_APPLE_CLIENT_IDS", appleClientIds),
            ("ISSUER_APPLE_SERVICES_ID", appleServicesId),
            ("ISSUER_APPLE_JWKS_URL", appleJwksUrl),
            ("ISSUER_APPLE_AUTHORIZE_URL", appleAuthorizeUrl),
            ("ISSUER_APPLE_REQUIRE_NONCE", appleRequireNonce),
            ("ISSUER_APPLE_ACCEPT_UNHASHED_NONCE", appleAcceptUnhashedNonce),
            ("ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL", appleLinkByVerifiedEmail),
            ("ISSUER_ACCESS_TOKEN_TTL", accessTokenTtl),
            ("ISSUER_ID_TOKEN_TTL", idTokenTtl),
            ("ISSUER_REFRESH_TOKEN_TTL", refreshTokenTtl),
            ("ISSUER_SESSION_MAX_AGE", sessionMaxAge),
            ("ISSUER_REFRESH_REUSE_GRACE", refreshReuseGrace),
            ("ISSUER_DPOP_NONCE", dpopNonce),
            ("ISSUER_SECRET", secret),
            ("ISSUER_SECRET_FILE", secretFile),
            ("ISSUER_MIGRATIONS_DIR", migrationsDir),
            ("ISSUER_TRUSTED_PROXIES", trustedProxies),
            ("ISSUER_RATE_LIMIT", rateLimit),
            ("ISSUER_APPLE_TEAM_ID", appleTeamId),
            ("ISSUER_APPLE_KEY_ID", appleKeyId),
            ("ISSUER_APPLE_PRIVATE_KEY_FILE", applePrivateKeyFile),
            ("ISSUER_APPLE_TOKEN_URL", appleTokenUrl),
            ("ISSUER_APPLE_REVOKE_URL", appleRevokeUrl),
            ("ISSUER_APPLE_MIGRATION_URL", appleMigrationUrl),
            ("ISSUER_DISPLAY_NAME", displayName),
            ("ISSUER_PAGES_DIR", pagesDir),
            ("ISSUER_LOG_LEVEL", logLevel),
            ("ISSUER_LOG_FORMAT", logFormat),
        ]
        return Dictionary(uniqueKeysWithValues: pairs.compactMap { name, value in value.map { (name, $0) } })
    }
}

extension ConfigurationSetting {
    /// Every setting (docs/reference.md, "Configuration"), section by section in the reference's order. `Configuration`
    /// enforces the rules written here; `ConfigurationReferenceTests` checks that each default
    /// written here is the one `Configuration` uses.
    public static let all: [ConfigurationSetting] = [
        // The server
        .init("ISSUER_URL", .server, default: "http://127.0.0.1:8080", """
            The `iss` of every token, byte for byte. Its path (say `/oidc` in `https://id.example.com/oidc`) \
            prefixes every route except `/healthz`, `/readyz` and `/metrics`. Must be an absolute `http`/`https` \
            URL without query or fragment.
            """),
        .init("ISSUER_HOST", .server, default: "127.0.0.1", "Where to listen: an address or a host name."),
        .init("ISSUER_PORT", .server, default: "8080", "Where to listen. Port 1–65535."),
        .init("ISSUER_OPS_HOST", .server, unset: "`ISSUER_HOST`", """
            Where the management listener listens (only with `ISSUER_OPS_PORT`).
            """),
        .init("ISSUER_OPS_PORT", .server, unset: "unset", """
            A second listener, the management port, that serves `/healthz`, `/readyz` and `/metrics` \
            and nothing else; they are then served only there. Port 1–65535, not the one of \
            `ISSUER_PORT` on the same host. Unset: they are served by the main listener.
            """),
        .init("ISSUER_LOG_LEVEL", .server, default: "info", """
            `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
            """),
        .init("ISSUER_LOG_FORMAT", .server, default: "text", """
            `text` (one escaped line per event) or `json` (one JSON object per line). Every line logged while \
            serving a request carries its request id, which the response returns as `X-Request-Id`. Control \
            characters in logged values are escaped, so no client input can forge a line.
            """),
        // The database
        .init("ISSUER_DATABASE_URL", .database, secret: true, """
            A libpq connection URI or `key=value` string. Unset: the embedded PostgreSQL under `.data/postgres`. \
            The role only needs to own its database. Secret: see below for `_FILE`.
            """),
        .init("ISSUER_DATABASE_POOL_SIZE", .database, default: "8", """
            Connections per process, a whole number from 1 to 1000.
            """),
        .init("ISSUER_MIGRATIONS_DIR", .database, """
            Read migrations from this directory instead of the ones built into the binary. Must be a \
            readable directory.
            """),
        // Keys and tokens
        .init("ISSUER_KEYS_DIR", .keysAndTokens, default: "./keys", """
            The signing key ring (private keys and `ring.json`).
            """),
        .init("ISSUER_KEYS_RELOAD_SECONDS", .keysAndTokens, default: "5", """
            How often a running server re-reads the ring; SIGHUP re-reads at once.
            """),
        .init("ISSUER_AUDIENCE", .keysAndTokens, default: "clanboards-mobile", "The `aud` of access tokens."),
        .init("ISSUER_ACCESS_TOKEN_TTL", .keysAndTokens, default: "3600", "Seconds. Never past the session's end."),
        .init("ISSUER_ID_TOKEN_TTL", .keysAndTokens, default: "3600", "Seconds. Never past the session's end."),
        .init("ISSUER_REFRESH_TOKEN_TTL", .keysAndTokens, default: "2592000", """
            Seconds (30 days); each rotation gets a fresh one, never past the session's end.
            """),
        .init("ISSUER_SESSION_MAX_AGE", .keysAndTokens, default: "7776000", """
            Seconds (90 days) from sign-in; nothing extends a session past it.
            """),
        .init("ISSUER_REFRESH_REUSE_GRACE", .keysAndTokens, default: "10", """
            Seconds during which a rotated refresh token is still answered with the same successor (a lost \
            response, retried). After it, presenting it revokes the session.
            """),
        .init("ISSUER_DPOP_NONCE", .keysAndTokens, default: "off", """
            `on`: every DPoP proof sent to the token endpoint or a native exchange must carry a server nonce \
            (RFC 9449 §8); a proof without the current one is `400 use_dpop_nonce`, and every answer of those \
            endpoints carries the next in `DPoP-Nonce`. Nonces are derived from `ISSUER_SECRET` and a 60-second \
            clock step, so every process agrees without storing them.
            """),
        .init("ISSUER_SECRET", .keysAndTokens, secret: true, """
            32 or more random bytes, base64 (`openssl rand -base64 32`). Seals the hosted flow's state, derives \
            refresh-token successors and encrypts Apple's tokens, one HKDF subkey each. Unset: one is generated \
            once and kept in the database. **Set it in production** (see below). Every process of a deployment \
            uses the same value.
            """),
        // Clients
        .init("ISSUER_CLIENTS_FILE", .clients, """
            A JSON array of clients (below). Unset: one client, `clanboards-mobile`, redirect URI \
            `clanboards://oauthredirect`, post-logout redirect URI `clanboards://signout`, scopes \
            `openid email profile offline_access`.
            """),
        // Sign in with Apple
        .init("ISSUER_APPLE_CLIENT_IDS", .apple, """
            Comma-separated bundle IDs: the audiences the native exchange accepts. Unset: the exchange answers \
            `503 temporarily_unavailable` saying Apple sign-in is not configured.
            """),
        .init("ISSUER_APPLE_SERVICES_ID", .apple, """
            The web Services ID: the `client_id` the hosted flow sends to Apple and the only audience its \
            callback accepts. Unset: `/oauth2/authorize` and `/auth/apple/callback` answer a 503 page saying so.
            """),
        .init("ISSUER_APPLE_REQUIRE_NONCE", .apple, default: "false", """
            `true` refuses a native exchange without a nonce.
            """),
        .init("ISSUER_APPLE_ACCEPT_UNHASHED_NONCE", .apple, default: "false", """
            `true` also accepts a token whose `nonce` claim is the request's nonce verbatim. Off by default: the \
            claim is readable in the token, so only `hex(SHA-256(nonce))` binds a token to the app that asked \
            for it. Turn it on only for app versions that hand Apple the raw value.
            """),
        .init("ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL", .apple, default: "false", """
            `true`: Apple's verified addresses that are not private relay addresses take part in linking by \
            e-mail, as a provider's `link_by_verified_email` does: a first Apple sign-in may join the user \
            with that verified address, and an Apple identity's address may be the one a trusted provider's \
            first sign-in joins. Off: Apple's addresses are never compared.
            """),
        .init("ISSUER_APPLE_JWKS_URL", .apple, default: "https://appleid.apple.com/auth/keys", "Apple's keys."),
        .init("ISSUER_APPLE_AUTHORIZE_URL", .apple, default: "https://appleid.apple.com/auth/authorize", """
            Where the hosted flow sends the browser.
            """),
        .init("ISSUER_APPLE_TOKEN_URL", .apple, default: "https://appleid.apple.com/auth/token", """
            Apple's token endpoint, where Apple's authorization codes are redeemed.
            """),
        .init("ISSUER_APPLE_REVOKE_URL", .apple, default: "https://appleid.apple.com/auth/revoke", """
            Apple's revocation endpoint, where account deletion revokes Apple's tokens.
            """),
        .init("ISSUER_APPLE_MIGRATION_URL", .apple, default: "https://appleid.apple.com/auth/usermigrationinfo", """
            Apple's user migration endpoint, for `issuer apple transfer` when the app moves to another Apple \
            developer team.
            """),
        .init("ISSUER_APPLE_TEAM_ID", .apple, """
            Your Apple developer team. Set `ISSUER_APPLE_TEAM_ID`, `ISSUER_APPLE_KEY_ID` and \
            `ISSUER_APPLE_PRIVATE_KEY_FILE` together or not at all. With them, Apple's authorization codes are \
            redeemed and Apple's refresh tokens kept (encrypted) so that account deletion can revoke them.
            """),
        .init("ISSUER_APPLE_KEY_ID", .apple, "The id of your Sign in with Apple key (with the two others)."),
        .init("ISSUER_APPLE_PRIVATE_KEY_FILE", .apple, """
            That key's `.p8` file (with the two others). It is read once at start; unreadable or not a P-256 \
            key stops the server naming the setting.
            """),
        // Google and other OpenID providers
        .init("ISSUER_PROVIDERS_FILE", .providers, """
            A JSON array of identity providers beside Apple (below): Google, Facebook, or any OpenID provider \
            with a discovery document. Unset: Apple is the only provider.
            """),
        // The pages people see
        .init("ISSUER_DISPLAY_NAME", .pages, default: "Sign in", """
            The name the sign-in, refusal and sign-out pages show above their heading when the client has no \
            `client_name` (the issuer's own name, or the product's). At most 100 characters on one line. \
            The default shows no name line: the page's heading (*Sign in*, in the reader's language) stands alone.
            """),
        .init("ISSUER_PAGES_DIR", .pages, """
            A directory that restyles and rewords the pages without a rebuild (below): `theme.json` (logo and \
            colours), `messages/<language>.json` (wording, per language) and the logo files that the theme and \
            the clients file's `logo` name. Unset: the built-in look, in English, French and German.
            """),
        // Traffic
        .init("ISSUER_TRUSTED_PROXIES", .traffic, """
            Comma-separated CIDRs (`10.0.0.0/8, ::1/128`) whose `X-Forwarded-For` is believed. The client is the \
            right-most hop that is not itself a trusted proxy; a hop may carry a port; a hop that is not an \
            address makes the proxy the client.
            """),
        .init("ISSUER_RATE_LIMIT", .traffic, default: "20/s burst 40", """
            One allowance per client, per process, shared by the sign-in and token endpoints (exchange, token, \
            revoke, authorize, callback, logout) and `/account` with its sub-paths. `N/s`, `N/m` or `N/h`, optionally `burst M` (default: N). The \
            rate must lie between one a day and 1,000,000/s and the burst at most 1,000,000. IPv6 clients are \
            limited per /64. Over it: `429` with `Retry-After` and `temporarily_unavailable`. `off` disables it. \
            Memory is bounded (100,000 clients; a client idle for a whole generation starts again with a full \
            burst).
            """),
    ]
}

/// A section of the configuration reference (`docs/configuration.md`): a heading, the table of
/// its settings, and what the reader needs to know about them beyond one row each.
public enum ConfigurationSection: String, CaseIterable, Sendable {
    case server
    case database
    case keysAndTokens
    case clients
    case apple
    case providers
    case pages
    case traffic

    public var title: String {
        switch self {
        case .server: "The server"
        case .database: "The database"
        case .keysAndTokens: "Keys and tokens"
        case .clients: "Clients"
        case .apple: "Sign in with Apple"
        case .providers: "Google and other OpenID providers"
        case .pages: "The pages people see"
        case .traffic: "Traffic"
        }
    }

    /// Markdown after the section's table; empty when there is nothing more to say.
    public var notes: String {
        switch self {
        case .server:
            """
            With `ISSUER_OPS_PORT` set, the main listener answers `404` for `/healthz`, `/readyz` and
            `/metrics`, so a load balancer or ingress in front of it never exposes them; point probes
            and Prometheus at the management port instead (the convention of Keycloak's management
            port).
            """
        case .database:
            """
            Every database call has one 5-second deadline covering the wait for a pooled connection, the
            connection itself and the answer; past it the request answers `503 temporarily_unavailable`, a
            connection stuck on a silent server is shut and replaced, and at most 1,024 requests wait for a
            connection at once (the next one gets 503 at once). Connections use TCP keepalives
            (`keepalives_idle=5`, `keepalives_interval=1`, `keepalives_count=5`), `tcp_user_timeout=10000` and
            a server-side `statement_timeout` of 5 s, so a partition is noticed within 10 s; values your URL
            sets for these win. Migrations run without a deadline.
            """
        case .keysAndTokens:
            ""
        case .clients:
            """
            ```json
            [
              {
                "client_id": "clanboards-android",
                "redirect_uris": ["com.example.clanboards:/oauthredirect"],
                "post_logout_redirect_uris": ["com.example.clanboards:/signout"],
                "scopes": ["openid", "email", "profile"],
                "apple_audiences": ["com.example.clanboards.web"],
                "allowed_origins": ["https://app.example.com", "http://localhost:19006"],
                "id_token_on_refresh": false
              }
            ]
            ```

            All clients are public (no secret) and bound to PKCE. `redirect_uris` receive authorization codes;
            `post_logout_redirect_uris` only the end of a sign-out; both are compared by exact string match,
            must be absolute and carry no fragment, and no URI may be in both lists (a code must never reach
            an app's sign-out handler). `apple_audiences` (optional) lists the Apple audiences — bundle IDs
            for the native exchange, the Services ID for the hosted flow — whose tokens this client may use;
            without it, any configured audience. `allowed_origins` (optional) lists the browser origins
            that get CORS on the token, revocation, userinfo and account endpoints (any client's list
            counts; see reference.md, "Browser clients"): each an exact origin as a browser sends it,
            `https://host[:port]`, or `http` to a loopback address only, with no path (not even `/`),
            query or fragment. `id_token_on_refresh` (optional, default `true`): `false` leaves the ID token
            out of refresh answers (OIDC Core §12.2 allows it), for an app that keeps its sign-in's ID token;
            each refresh then costs one signature instead of two. `client_name` (optional, a non-empty
            string on one line) is the app's name on its sign-in page (RFC 7591 §2), and `logo` (optional)
            an image file of `ISSUER_PAGES_DIR` shown above it (see "The pages people see" below). `dpop` (optional, `"optional"` or `"required"`,
            default `"optional"`): `"required"` refuses every token request of the client without a DPoP proof
            (`400 invalid_dpop_proof`; see reference.md, "DPoP"). `offline_access` is accepted from every client and changes
            nothing: every sign-in gets a refresh token. A member not named here is refused, never ignored: a
            misspelt restriction (`apple_audience`, `allowed_orgins`) would silently widen what the client may
            do. A file that is unreadable, not strictly JSON (no trailing
            comma, no member twice, no `null` member), not an array of such objects, has an unknown member or
            a member of the wrong type, or breaks a rule above stops the server at start naming
            `ISSUER_CLIENTS_FILE`, the entry and the member.
            """
        case .apple:
            """
            Apple's URLs must be `https`; plain `http` is accepted only to a loopback address
            (`127.0.0.0/8`, `::1`, `localhost`), for development and tests. Every call to Apple has one
            5-second deadline for the whole exchange (body included), a cap on the answer's size, and follows
            no redirect.

            Behind an egress proxy, the calls to Apple honour `HTTPS_PROXY` (for `https` URLs), `HTTP_PROXY`
            (for `http` ones) and `NO_PROXY`, or their lower-case forms: an `http://[user:password@]host[:port]`
            proxy, which Issuer asks for a `CONNECT` tunnel, and a comma-separated list of hosts, domains
            (with their subdomains), addresses or CIDRs, each optionally with `:port`, or `*`, reached
            directly. Loopback targets go direct unless the proxy is on loopback too. An invalid value stops
            the server at start naming the variable, never printing the proxy's password (reference.md,
            "Outbound proxy").
            """
        case .providers:
            """
            ```json
            [
              {
                "id": "google",
                "kind": "google",
                "native_audiences": ["123-web.apps.googleusercontent.com"],
                "authorized_parties": ["123-android.apps.googleusercontent.com"],
                "client_id": "123-web.apps.googleusercontent.com",
                "client_secret_file": "/run/secrets/google-client-secret"
              },
              {
                "id": "corp",
                "kind": "oidc",
                "issuer": "https://login.example.com",
                "client_id": "issuer",
                "client_secret": "…",
                "scopes": ["openid", "email"]
              },
              {
                "id": "facebook",
                "kind": "facebook",
                "app_id": "1234567890",
                "app_secret_file": "/run/secrets/facebook-app-secret"
              }
            ]
            ```

            `id` (lowercase letters, not `apple`) names the provider in `/auth/{id}/exchange`,
            `/auth/{id}/callback` and `issuer users`. `kind` `google` takes Google's published issuer
            (`https://accounts.google.com`, which Google also writes `accounts.google.com`; both are
            accepted), JWKS and endpoints; `oidc` finds them in `{issuer}/.well-known/openid-configuration`,
            fetched and cached like a JWKS. `native_audiences` are the `aud` values the native exchange
            accepts (for Google the *web* client ID the app hands Credential Manager); `authorized_parties`
            the `azp` values accepted when a token carries one (for Google the Android client IDs);
            `hosted_domain` requires that `hd`. `client_id` with `client_secret` (or `client_secret_file`,
            read relative to this file, one trailing newline stripped) lets the hosted flow use the
            provider; `scopes` defaults to `openid email profile`. A `google` provider also turns on
            `/auth/google/risc`, the receiver of Google's account-protection events, whose tokens must name
            one of its `native_audiences` or its `client_id` and are signed by the keys at `risc_jwks_uri`
            (Google's published certificates by default). `jwks_uri`, `authorization_endpoint`,
            `token_endpoint` and `risc_jwks_uri` override the defaults (tests, unusual deployments); like every
            remote URL they must be `https` (plain `http` only to loopback). An unknown field, an unknown kind,
            a duplicate `id`, two entries with one issuer (Google's two spellings count as one; trailing
            slashes, the host's case and a default port are ignored), an entry claiming Apple's issuer
            `https://appleid.apple.com`, a provider that could sign nobody in, or a file that is not strictly
            JSON (no trailing comma, no field twice, no `null` field) stops the server at start naming
            `ISSUER_PROVIDERS_FILE`, the entry and the field.

            `kind` `facebook` (docs/reference.md, "Facebook") takes `app_id` (the Facebook App ID) and
            `app_secret` or `app_secret_file`, both required; Limited Login's issuer, keys, the Graph API and
            the dialog are Facebook's, overridden for tests by `jwks_uri`, `graph_url`, `graph_version`
            (default `v23.0`), `authorization_endpoint` and `token_endpoint`. The other kinds' fields are
            refused on it, and its own on them; so is `link_by_verified_email`, since Facebook marks no
            address verified. It serves `/auth/{id}/exchange` (Limited Login's token or a classic access
            token), the hosted flow, and Facebook's callbacks `/auth/{id}/deauthorize` and
            `/auth/{id}/data-deletion`.
            """
        case .pages:
            """
            ```
            pages/
              theme.json          {"logo": "logo.svg", "accent": "#0b57d0", "dark_accent": "#8ab4f8"}
              logo.svg            the theme's logo, on every page
              clanboards.png      a client's "logo": "clanboards.png", on its sign-in page
              messages/
                en.json           {"sign_in.prompt": "Pick an account to continue."}
                es.json           a language of your own
            ```

            Every part is optional. `theme.json` is one flat JSON object: `logo` (a file of the directory) and
            the colours `background`, `surface` (the card), `text`, `muted`, `accent` (the keyboard focus ring)
            and `border`, each `#rrggbb` or `#rgb`, for light mode; the same names prefixed `dark_` for dark mode
            (`prefers-color-scheme`). Each text colour must keep a WCAG 2.2 AA contrast of 4.5:1 on `surface`
            and `accent` 3:1, in both modes. `messages/<language>.json` (`fr.json`, `pt-BR.json`) maps message
            keys to sentences: a built-in language's keys are replaced one by one, a new language is added,
            and a key it lacks falls back along its tag (`pt-br` to `pt`) and then to English; a sentence may
            use only its key's placeholders (`{app}`, `{provider}`, `{parameter}`). The keys are listed in
            reference.md, "The pages people see". Logos (`.png`, `.jpg`, `.webp` or `.svg`, at most 512 KiB,
            their first bytes matching the extension) are read once at start and served by Issuer itself at
            `/assets/<hash>.<ext>`. An unknown member or key, a colour that is not one, too little contrast,
            a misnamed file under `messages/`, or a logo that is missing or not an image stops the server at
            start naming `ISSUER_PAGES_DIR` (or `ISSUER_CLIENTS_FILE` for a client's logo). Changes are read
            at the next start.
            """
        case .traffic:
            """
            A connection that does not deliver a complete request within 30 s of opening (or of its previous
            response), a slow trickle included, is closed. Bodies are limited to 64 KiB.
            """
        }
    }

    /// The section's settings, in the table's order.
    public var settings: [ConfigurationSetting] {
        ConfigurationSetting.all.filter { $0.section == self }
    }
}

import Foundation
import Logging

/// Every setting (docs/reference.md, "Configuration"), validated. Built once at start from the environment with the
/// command line's flags laid over it; nothing reads the environment after that.
public struct Configuration: Sendable {
    /// docs/reference.md, "Configuration": the `iss` of every token, exactly as configured.
    public var issuerURL: URL
    /// ISSUER_HOST: the address to listen on.
    public var host: String
    /// ISSUER_PORT: the port to listen on.
    public var port: Int
    /// ISSUER_OPS_HOST: where the management listener listens (docs/reference.md, "Configuration" and "Operations"); `host` by default.
    public var operationsHost: String
    /// ISSUER_OPS_PORT: the management listener's port; nil serves the operations endpoints on
    /// the main listener (docs/reference.md, "Operations").
    public var operationsPort: Int?
    /// A libpq connection URI, which may hold a password; nil selects the embedded default (docs/reference.md, "The embedded database").
    public var databaseURL: Secret<String>?
    /// ISSUER_DATABASE_POOL_SIZE: connections per process.
    public var databasePoolSize: Int
    /// ISSUER_KEYS_DIR: the signing key ring (docs/reference.md, "Signing keys").
    public var keysDirectory: URL
    /// ISSUER_KEYS_RELOAD_SECONDS: how often a running server re-reads the key ring.
    public var keysReloadInterval: Duration
    /// RFC 9068 §2.2: the `aud` of access tokens.
    public var audience: String
    /// ISSUER_CLIENTS_FILE: the registered clients; the built-in default client when unset.
    public var clients: ClientRegistry
    /// ISSUER_PROVIDERS_FILE: OpenID providers beside Apple (docs/reference.md, "Google and other OpenID providers").
    public var providers: ProviderRegistry
    /// Apple audiences accepted by the native exchange; nil: Apple sign-in is not configured.
    public var appleClientIDs: [String]?
    /// ISSUER_APPLE_SERVICES_ID: the hosted flow's Apple `client_id`; nil: that flow answers 503.
    public var appleServicesID: String?
    /// ISSUER_APPLE_JWKS_URL: where Apple's keys are fetched.
    public var appleJWKSURL: URL
    /// ISSUER_APPLE_AUTHORIZE_URL: where the hosted flow sends the browser.
    public var appleAuthorizeURL: URL
    /// ISSUER_APPLE_REQUIRE_NONCE: refuse an exchange that carries no nonce.
    public var appleRequireNonce: Bool
    /// ISSUER_APPLE_ACCEPT_UNHASHED_NONCE: also accept a token whose `nonce` claim is the raw
    /// nonce (docs/reference.md, "Native sign-in"; weaker, since the claim is readable in a stolen token).
    public var appleAcceptUnhashedNonce: Bool
    /// ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL: Apple's verified addresses that are not relay
    /// addresses take part in linking by e-mail, on both sides (docs/reference.md, "Linked identities").
    public var appleLinkByVerifiedEmail: Bool
    /// ISSUER_ACCESS_TOKEN_TTL (whole seconds): access token lifetime.
    public var accessTokenTTL: Duration
    /// ISSUER_ID_TOKEN_TTL (whole seconds): ID token lifetime.
    public var idTokenTTL: Duration
    /// ISSUER_REFRESH_TOKEN_TTL (whole seconds); each rotated refresh token gets a fresh TTL.
    public var refreshTokenTTL: Duration
    /// ISSUER_SESSION_MAX_AGE (whole seconds); no refresh extends a session past this.
    public var sessionMaxAge: Duration
    /// ISSUER_REFRESH_REUSE_GRACE (whole seconds): how long a rotated refresh token is still honoured as a retry (docs/reference.md, "Refresh tokens and sessions").
    public var refreshReuseGrace: Duration
    /// ISSUER_DPOP_NONCE (`on` or `off`): whether every token request's DPoP proof must carry a server nonce (docs/reference.md, "DPoP").
    public var dpopNonce: Bool
    /// The decoded `ISSUER_SECRET`; nil: generated once and kept in the database.
    public var secret: Secret<[UInt8]>?
    /// Overrides the migrations built into the binary.
    public var migrationsDirectory: URL?
    /// ISSUER_TRUSTED_PROXIES: peers whose `X-Forwarded-For` is believed for the client IP.
    public var trustedProxies: [IPAddressRange]
    /// ISSUER_RATE_LIMIT: the allowance per client IP; nil when `off`.
    public var rateLimit: RateLimit?
    /// ISSUER_APPLE_TEAM_ID, _KEY_ID and _PRIVATE_KEY_FILE (all or none); nil: Apple codes are not redeemed.
    public var appleCredentials: AppleCredentials?
    /// ISSUER_APPLE_TOKEN_URL: Apple's token endpoint.
    public var appleTokenURL: URL
    /// ISSUER_APPLE_REVOKE_URL: Apple's revocation endpoint.
    public var appleRevokeURL: URL
    /// ISSUER_APPLE_MIGRATION_URL: Apple's `usermigrationinfo`, for a team transfer (docs/reference.md, "Apple team transfer").
    public var appleMigrationURL: URL
    /// HTTPS_PROXY, HTTP_PROXY and NO_PROXY: how outbound calls reach Apple (docs/reference.md, "Outbound proxy").
    public var outboundProxy: OutboundProxy
    /// ISSUER_LOG_LEVEL: the lowest level logged.
    public var logLevel: Logger.Level
    /// ISSUER_LOG_FORMAT: `text`, or `json` for one object per line.
    public var logFormat: LogFormat
    /// ISSUER_DISPLAY_NAME: the name the pages people see show for a client without a
    /// `client_name`; `defaultDisplayName` unless set (docs/reference.md, "The pages people see").
    public var displayName: String
    /// ISSUER_DISPLAY_NAME's default.
    public static let defaultDisplayName = "Sign in"

    /// The name the pages show above their heading for a client without a `client_name`: nil for
    /// the default, which only repeats the heading (shown in the reader's language already).
    public var pagesDisplayName: String? { displayName == Self.defaultDisplayName ? nil : displayName }
    /// ISSUER_PAGES_DIR, read: the pages' theme, wording and logos, the clients' included; the
    /// built-in look without it (docs/reference.md, "The pages people see").
    public var pages: PageSettings

    /// How log lines are written.
    public enum LogFormat: String, Sendable {
        case text
        case json
    }

    /// Apple developer credentials for redeeming and revoking Apple tokens (docs/reference.md, "Apple token custody").
    public struct AppleCredentials: Sendable, Equatable {
        /// ISSUER_APPLE_TEAM_ID: the Apple developer team.
        public var teamID: String
        /// ISSUER_APPLE_KEY_ID: the `kid` of the Sign in with Apple private key.
        public var keyID: String
        /// ISSUER_APPLE_PRIVATE_KEY_FILE: that private key, as Apple issued it (`.p8`).
        public var privateKeyFile: URL
        /// The key in that file, read once at start (docs/reference.md, "Configuration": unreadable or not P-256 stops the process).
        public var signingKey: AppleSigningKey
    }

    /// Route prefix: the path of `issuerURL` without a trailing slash ("" at the root).
    public var pathPrefix: String {
        var path = issuerURL.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// Validates every setting; throws for the first bad one, in the order (docs/reference.md, "Configuration").
    /// - Parameter databaseURLProblem: what is wrong with a database URL as the database's client
    ///   library reads it; nil when nothing is (`Configuration(environment:)` asks libpq).
    public init(environment: [String: String], databaseURLProblem: (String) -> String?) throws {
        let reader = ConfigurationReader(environment: try ConfigurationReader.resolvingSecretFiles(environment))
        issuerURL = try reader.url("ISSUER_URL", default: "http://127.0.0.1:8080")
        host = reader.string("ISSUER_HOST", default: "127.0.0.1")
        port = try reader.positiveInt("ISSUER_PORT", default: 8080, max: 65535)
        operationsHost = reader.string("ISSUER_OPS_HOST", default: host)
        operationsPort = reader.string("ISSUER_OPS_PORT") == nil
            ? nil : try reader.positiveInt("ISSUER_OPS_PORT", default: 0, max: 65535)
        if operationsPort == port, operationsHost == host {
            throw reader.invalid("ISSUER_OPS_PORT", "must differ from ISSUER_PORT (the management listener is a second listener)")
        }
        databaseURL = reader.string("ISSUER_DATABASE_URL").map(Secret.init)
        if let databaseURL, let problem = databaseURLProblem(databaseURL.revealed) {
            // libpq's complaint alone (`missing "…" after "…"`, its quotes redacted: they may hold
            // the password) does not say what would be right.
            throw reader.invalid("ISSUER_DATABASE_URL", """
                is not a libpq connection string (\(problem)): write postgresql://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=require, \
                or key=value pairs such as "host=db.internal dbname=issuer user=issuer"
                """)
        }
        databasePoolSize = try reader.positiveInt("ISSUER_DATABASE_POOL_SIZE", default: 8, max: 1000)
        keysDirectory = URL(fileURLWithPath: reader.string("ISSUER_KEYS_DIR", default: "./keys"), isDirectory: true)
        keysReloadInterval = .seconds(try reader.positiveInt("ISSUER_KEYS_RELOAD_SECONDS", default: 5))
        audience = reader.string("ISSUER_AUDIENCE", default: "clanboards-mobile")
        if let file = try reader.readableFile("ISSUER_CLIENTS_FILE") {
            do {
                clients = try ClientRegistry(contentsOf: file)
            } catch let error as ClientRegistry.Problem {
                throw ConfigurationError(setting: "ISSUER_CLIENTS_FILE", problem: "\(error.description) (in the file '\(file.path)')")
            }
        } else {
            clients = .default
        }
        if let file = try reader.readableFile("ISSUER_PROVIDERS_FILE") {
            do {
                providers = try ProviderRegistry(contentsOf: file)
            } catch let error as ProviderRegistry.Problem {
                // The file's path is where the problem is, not the value at fault (which the problem names).
                throw ConfigurationError(setting: "ISSUER_PROVIDERS_FILE", problem: "\(error.description) (in the file '\(file.path)')")
            }
        } else {
            providers = .none
        }
        appleClientIDs = try reader.list("ISSUER_APPLE_CLIENT_IDS")
        appleServicesID = reader.string("ISSUER_APPLE_SERVICES_ID")
        appleJWKSURL = try reader.remoteURL("ISSUER_APPLE_JWKS_URL", default: "https://appleid.apple.com/auth/keys")
        appleAuthorizeURL = try reader.remoteURL("ISSUER_APPLE_AUTHORIZE_URL", default: "https://appleid.apple.com/auth/authorize")
        appleRequireNonce = try reader.bool("ISSUER_APPLE_REQUIRE_NONCE", default: false)
        appleAcceptUnhashedNonce = try reader.bool("ISSUER_APPLE_ACCEPT_UNHASHED_NONCE", default: false)
        appleLinkByVerifiedEmail = try reader.bool("ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL", default: false)
        accessTokenTTL = .seconds(try reader.positiveInt("ISSUER_ACCESS_TOKEN_TTL", default: 3600))
        idTokenTTL = .seconds(try reader.positiveInt("ISSUER_ID_TOKEN_TTL", default: 3600))
        refreshTokenTTL = .seconds(try reader.positiveInt("ISSUER_REFRESH_TOKEN_TTL", default: 2_592_000))
        sessionMaxAge = .seconds(try reader.positiveInt("ISSUER_SESSION_MAX_AGE", default: 7_776_000))
        refreshReuseGrace = .seconds(try reader.positiveInt("ISSUER_REFRESH_REUSE_GRACE", default: 10))
        switch reader.string("ISSUER_DPOP_NONCE", default: "off").lowercased() {
        case "on": dpopNonce = true
        case "off": dpopNonce = false
        default: throw reader.invalid("ISSUER_DPOP_NONCE", "must be on or off")
        }
        if let text = reader.string("ISSUER_SECRET") {
            guard let bytes = Data(base64Encoded: text), bytes.count >= 32 else {
                throw reader.invalid("ISSUER_SECRET", "must be base64 of at least 32 bytes (e.g. `openssl rand -base64 32`)")
            }
            secret = Secret(Array(bytes))
        } else {
            secret = nil
        }
        migrationsDirectory = try reader.readableDirectory("ISSUER_MIGRATIONS_DIR")
        trustedProxies = try (reader.list("ISSUER_TRUSTED_PROXIES") ?? []).map { item in
            guard let range = IPAddressRange(cidr: item) else {
                throw reader.invalid("ISSUER_TRUSTED_PROXIES", "must be a comma-separated list of CIDRs such as 10.0.0.0/8")
            }
            return range
        }
        let rateLimitText = reader.string("ISSUER_RATE_LIMIT", default: "20/s burst 40")
        if rateLimitText.lowercased() == "off" {
            rateLimit = nil
        } else {
            guard let limit = RateLimit(rateLimitText) else {
                throw reader.invalid("ISSUER_RATE_LIMIT", "must be 'off' or like '20/s burst 40' (a rate from 1/day to 1000000/s, a burst up to 1000000)")
            }
            rateLimit = limit
        }
        let teamID = reader.string("ISSUER_APPLE_TEAM_ID")
        let keyID = reader.string("ISSUER_APPLE_KEY_ID")
        let keyFile = try reader.readableFile("ISSUER_APPLE_PRIVATE_KEY_FILE")
        switch (teamID, keyID, keyFile) {
        case (nil, nil, nil):
            appleCredentials = nil
        case (let teamID?, let keyID?, let keyFile?):
            guard let key = AppleSigningKey(contentsOf: keyFile) else {
                throw reader.invalid("ISSUER_APPLE_PRIVATE_KEY_FILE", "must be the P-256 private key (.p8, PKCS#8 PEM) Apple issued")
            }
            appleCredentials = AppleCredentials(teamID: teamID, keyID: keyID, privateKeyFile: keyFile, signingKey: key)
        default:
            let missing = teamID == nil ? "ISSUER_APPLE_TEAM_ID" : keyID == nil ? "ISSUER_APPLE_KEY_ID" : "ISSUER_APPLE_PRIVATE_KEY_FILE"
            throw ConfigurationError(setting: missing, problem: "must be set together with the other Apple developer credentials")
        }
        appleTokenURL = try reader.remoteURL("ISSUER_APPLE_TOKEN_URL", default: "https://appleid.apple.com/auth/token")
        appleRevokeURL = try reader.remoteURL("ISSUER_APPLE_REVOKE_URL", default: "https://appleid.apple.com/auth/revoke")
        appleMigrationURL = try reader.remoteURL("ISSUER_APPLE_MIGRATION_URL", default: "https://appleid.apple.com/auth/usermigrationinfo")
        outboundProxy = try OutboundProxy(environment: reader.environment)
        let levelText = reader.string("ISSUER_LOG_LEVEL", default: "info").lowercased()
        guard let level = Logger.Level(rawValue: levelText) else {
            throw reader.invalid("ISSUER_LOG_LEVEL", "must be one of trace, debug, info, notice, warning, error, critical")
        }
        logLevel = level
        guard let format = LogFormat(rawValue: reader.string("ISSUER_LOG_FORMAT", default: "text").lowercased()) else {
            throw reader.invalid("ISSUER_LOG_FORMAT", "must be text or json")
        }
        logFormat = format
        displayName = try Self.displayName(reader)
        pages = try Self.pages(reader, clients: clients)
    }
}

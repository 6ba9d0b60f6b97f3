/// One setting of SPEC §2: its environment variable, the `serve` flag that overrides it, and
/// whether its value is a secret that must never be echoed (not even in an error message).
public struct ConfigurationSetting: Sendable, Hashable {
    /// The environment variable, e.g. `ISSUER_PORT`.
    public let variable: String
    /// Never echoed, not even in an error message (the database URL, the server secret).
    public let isSecret: Bool

    /// `ISSUER_DATABASE_POOL_SIZE` → `database-pool-size`.
    public var flag: String {
        String(variable.dropFirst("ISSUER_".count)).lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// SPEC §2: a secret setting may instead be read from the file this variable names
    /// (`ISSUER_SECRET_FILE`), the container convention; `nil` for settings that are not secret.
    public var fileVariable: String? { isSecret ? variable + "_FILE" : nil }

    init(_ variable: String, secret: Bool = false) {
        self.variable = variable
        self.isSecret = secret
    }

    /// Every setting, in SPEC §2's order.
    public static let all: [ConfigurationSetting] = [
        .init("ISSUER_URL"), .init("ISSUER_HOST"), .init("ISSUER_PORT"), .init("ISSUER_OPS_HOST"), .init("ISSUER_OPS_PORT"),
        .init("ISSUER_DATABASE_URL", secret: true), .init("ISSUER_DATABASE_POOL_SIZE"),
        .init("ISSUER_KEYS_DIR"), .init("ISSUER_KEYS_RELOAD_SECONDS"), .init("ISSUER_AUDIENCE"),
        .init("ISSUER_CLIENTS_FILE"), .init("ISSUER_APPLE_CLIENT_IDS"), .init("ISSUER_APPLE_SERVICES_ID"),
        .init("ISSUER_APPLE_JWKS_URL"), .init("ISSUER_APPLE_AUTHORIZE_URL"), .init("ISSUER_APPLE_REQUIRE_NONCE"),
        .init("ISSUER_APPLE_ACCEPT_UNHASHED_NONCE"),
        .init("ISSUER_ACCESS_TOKEN_TTL"), .init("ISSUER_ID_TOKEN_TTL"), .init("ISSUER_REFRESH_TOKEN_TTL"),
        .init("ISSUER_SESSION_MAX_AGE"), .init("ISSUER_REFRESH_REUSE_GRACE"), .init("ISSUER_SECRET", secret: true),
        .init("ISSUER_MIGRATIONS_DIR"), .init("ISSUER_TRUSTED_PROXIES"), .init("ISSUER_RATE_LIMIT"),
        .init("ISSUER_APPLE_TEAM_ID"), .init("ISSUER_APPLE_KEY_ID"), .init("ISSUER_APPLE_PRIVATE_KEY_FILE"),
        .init("ISSUER_APPLE_TOKEN_URL"), .init("ISSUER_APPLE_REVOKE_URL"),
        .init("ISSUER_LOG_LEVEL"), .init("ISSUER_LOG_FORMAT"),
    ]

    /// The setting called `variable`, if there is one.
    public static func named(_ variable: String) -> ConfigurationSetting? {
        all.first { $0.variable == variable }
    }
}

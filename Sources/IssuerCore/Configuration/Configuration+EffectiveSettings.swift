import Foundation

extension Configuration {
    /// What `issuer config check` prints (docs/reference.md, "Admin CLI"): each setting of the table with the value in
    /// effect, nil when unset. Secrets are never shown, only whether they are set.
    public var effectiveSettings: [(setting: ConfigurationSetting, value: String?)] {
        let values = effectiveValues
        return ConfigurationSetting.all.map { setting in
            let value = values[setting.variable] ?? nil
            return (setting, setting.isSecret ? value.map { _ in "<redacted>" } : value)
        }
    }

    /// The values in effect, keyed by variable; a missing key or a nil is an unset setting.
    var effectiveValues: [String: String?] {
        [
            "ISSUER_URL": issuerURL.absoluteString,
            "ISSUER_HOST": host,
            "ISSUER_PORT": String(port),
            "ISSUER_OPS_HOST": operationsPort.map { _ in operationsHost },
            "ISSUER_OPS_PORT": operationsPort.map(String.init),
            "ISSUER_LOG_LEVEL": logLevel.rawValue,
            "ISSUER_LOG_FORMAT": logFormat.rawValue,
            "ISSUER_DATABASE_URL": databaseURL?.revealed,
            "ISSUER_DATABASE_POOL_SIZE": String(databasePoolSize),
            "ISSUER_MIGRATIONS_DIR": migrationsDirectory?.path,
            "ISSUER_KEYS_DIR": keysDirectory.standardizedFileURL.path,
            "ISSUER_KEYS_RELOAD_SECONDS": String(keysReloadInterval.components.seconds),
            "ISSUER_AUDIENCE": audience,
            "ISSUER_ACCESS_TOKEN_TTL": String(accessTokenTTL.wholeSeconds),
            "ISSUER_ID_TOKEN_TTL": String(idTokenTTL.wholeSeconds),
            "ISSUER_REFRESH_TOKEN_TTL": String(refreshTokenTTL.wholeSeconds),
            "ISSUER_SESSION_MAX_AGE": String(sessionMaxAge.wholeSeconds),
            "ISSUER_REFRESH_REUSE_GRACE": String(refreshReuseGrace.wholeSeconds),
            "ISSUER_DPOP_NONCE": dpopNonce ? "on" : "off",
            "ISSUER_SECRET": secret.map { _ in "set" },
            "ISSUER_CLIENTS_FILE": clients == .default ? nil : clients.clients.map(\.clientID).joined(separator: ", "),
            "ISSUER_PROVIDERS_FILE": providers.providers.isEmpty ? nil : providers.providers.map(\.id).joined(separator: ", "),
            "ISSUER_APPLE_CLIENT_IDS": appleClientIDs?.joined(separator: ","),
            "ISSUER_APPLE_SERVICES_ID": appleServicesID,
            "ISSUER_APPLE_REQUIRE_NONCE": String(appleRequireNonce),
            "ISSUER_APPLE_ACCEPT_UNHASHED_NONCE": String(appleAcceptUnhashedNonce),
            "ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL": String(appleLinkByVerifiedEmail),
            "ISSUER_APPLE_JWKS_URL": appleJWKSURL.absoluteString,
            "ISSUER_APPLE_AUTHORIZE_URL": appleAuthorizeURL.absoluteString,
            "ISSUER_APPLE_TOKEN_URL": appleTokenURL.absoluteString,
            "ISSUER_APPLE_REVOKE_URL": appleRevokeURL.absoluteString,
            "ISSUER_APPLE_MIGRATION_URL": appleMigrationURL.absoluteString,
            "ISSUER_APPLE_TEAM_ID": appleCredentials?.teamID,
            "ISSUER_APPLE_KEY_ID": appleCredentials?.keyID,
            "ISSUER_APPLE_PRIVATE_KEY_FILE": appleCredentials?.privateKeyFile.path,
            "ISSUER_DISPLAY_NAME": displayName,
            "ISSUER_PAGES_DIR": pages.directory?.path,
            "ISSUER_TRUSTED_PROXIES": trustedProxies.isEmpty ? nil : trustedProxies.map(\.description).joined(separator: ","),
            "ISSUER_RATE_LIMIT": rateLimit.map { limit in
                let rate = limit.perSecond.rounded() == limit.perSecond ? String(Int(limit.perSecond)) : String(limit.perSecond)
                return "\(rate)/s burst \(limit.burst)"
            } ?? "off",
        ]
    }
}

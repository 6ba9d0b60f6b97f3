import Foundation
import IssuerCore
import IssuerStorage
import Logging
import Testing
import TestSupport

@Suite("Configuration")
struct ConfigurationTests {
    @Test("with nothing set, every default is reference: Configuration's")
    func defaults() throws {
        let configuration = try Configuration(environment: [:])
        #expect(configuration.issuerURL.absoluteString == "http://127.0.0.1:8080")
        #expect(configuration.pathPrefix == "")
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.databaseURL == nil)
        #expect(configuration.databasePoolSize == 8)
        #expect(configuration.keysDirectory.path.hasSuffix("/keys"))
        #expect(configuration.keysReloadInterval == .seconds(5))
        #expect(configuration.audience == "clanboards-mobile")
        #expect(configuration.clients == .default)
        #expect(configuration.clients.client(id: "clanboards-mobile")?.redirectURIs == ["clanboards://oauthredirect"])
        #expect(configuration.clients.client(id: "clanboards-mobile")?.postLogoutRedirectURIs == ["clanboards://signout"])
        #expect(configuration.clients.client(id: "clanboards-mobile")?.scopes == ["openid", "email", "profile", "offline_access"])
        #expect(configuration.appleAcceptUnhashedNonce == false)
        #expect(configuration.appleClientIDs == nil)
        #expect(configuration.appleServicesID == nil)
        #expect(configuration.appleJWKSURL.absoluteString == "https://appleid.apple.com/auth/keys")
        #expect(configuration.appleAuthorizeURL.absoluteString == "https://appleid.apple.com/auth/authorize")
        #expect(configuration.appleRequireNonce == false)
        #expect(configuration.accessTokenTTL == .seconds(3600))
        #expect(configuration.idTokenTTL == .seconds(3600))
        #expect(configuration.refreshTokenTTL == .seconds(2_592_000))
        #expect(configuration.sessionMaxAge == .seconds(7_776_000))
        #expect(configuration.refreshReuseGrace == .seconds(10))
        #expect(configuration.secret == nil)
        #expect(configuration.migrationsDirectory == nil)
        #expect(configuration.trustedProxies.isEmpty)
        #expect(configuration.rateLimit == RateLimit(perSecond: 20, burst: 40))
        #expect(configuration.appleCredentials == nil)
        #expect(configuration.appleTokenURL.absoluteString == "https://appleid.apple.com/auth/token")
        #expect(configuration.appleRevokeURL.absoluteString == "https://appleid.apple.com/auth/revoke")
        #expect(configuration.logLevel == .info)
        #expect(configuration.logFormat == .text)
    }

    @Test("valid values are taken")
    func validValues() throws {
        let secret = Data((0..<32).map(UInt8.init)).base64EncodedString()
        let configuration = try Configuration(environment: [
            "ISSUER_URL": "https://api.example.com/oidc/",
            "ISSUER_PORT": "9000",
            "ISSUER_DATABASE_URL": "postgresql://issuer@db.internal:5432/issuer?sslmode=require",
            "ISSUER_APPLE_CLIENT_IDS": "com.example.app, com.example.app.dev",
            "ISSUER_APPLE_REQUIRE_NONCE": "true",
            "ISSUER_SECRET": secret,
            "ISSUER_TRUSTED_PROXIES": "10.0.0.0/8,::1",
            "ISSUER_RATE_LIMIT": "off",
            "ISSUER_LOG_LEVEL": "DEBUG",
            "ISSUER_LOG_FORMAT": "json",
            "ISSUER_SESSION_MAX_AGE": "",
        ])
        #expect(configuration.pathPrefix == "/oidc")
        #expect(configuration.port == 9000)
        #expect(configuration.appleClientIDs == ["com.example.app", "com.example.app.dev"])
        #expect(configuration.appleRequireNonce)
        #expect(configuration.secret?.revealed.count == 32)
        #expect(configuration.trustedProxies.count == 2)
        #expect(configuration.rateLimit == nil)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.logFormat == .json)
        #expect(configuration.sessionMaxAge == .seconds(7_776_000), "an empty value counts as unset")
    }

    @Test("each invalid value is refused with an error naming its setting", arguments: [
        ("ISSUER_URL", "not a url"),
        ("ISSUER_URL", "ftp://example.com"),
        ("ISSUER_URL", "https://example.com/oidc?x=1"),
        ("ISSUER_PORT", "eighty"),
        ("ISSUER_PORT", "0"),
        ("ISSUER_PORT", "70000"),
        ("ISSUER_DATABASE_URL", "postgresql://[broken"),
        ("ISSUER_DATABASE_URL", "host=x bogus_option=1"),
        ("ISSUER_DATABASE_POOL_SIZE", "-1"),
        ("ISSUER_DATABASE_POOL_SIZE", "many"),
        ("ISSUER_KEYS_RELOAD_SECONDS", "0"),
        ("ISSUER_CLIENTS_FILE", "/nonexistent/clients.json"),
        ("ISSUER_PROVIDERS_FILE", "/nonexistent/providers.json"),
        ("ISSUER_APPLE_CLIENT_IDS", "a,,b"),
        ("ISSUER_APPLE_JWKS_URL", "appleid.apple.com/auth/keys"),
        ("ISSUER_APPLE_AUTHORIZE_URL", "mailto:x@y"),
        ("ISSUER_APPLE_REQUIRE_NONCE", "maybe"),
        ("ISSUER_DPOP_NONCE", "yes"),
        ("ISSUER_ACCESS_TOKEN_TTL", "1h"),
        ("ISSUER_ID_TOKEN_TTL", "-5"),
        ("ISSUER_REFRESH_TOKEN_TTL", "3.5"),
        ("ISSUER_SESSION_MAX_AGE", "0"),
        ("ISSUER_REFRESH_REUSE_GRACE", "ten"),
        ("ISSUER_SECRET", "c2hvcnQ="),
        ("ISSUER_SECRET", "%%% not base64 %%%"),
        ("ISSUER_MIGRATIONS_DIR", "/nonexistent/migrations"),
        ("ISSUER_TRUSTED_PROXIES", "10.0.0.0/33"),
        ("ISSUER_TRUSTED_PROXIES", "example.com"),
        ("ISSUER_RATE_LIMIT", "fast"),
        ("ISSUER_RATE_LIMIT", "20/s burst -1"),
        ("ISSUER_APPLE_PRIVATE_KEY_FILE", "/nonexistent/AuthKey.p8"),
        ("ISSUER_APPLE_TOKEN_URL", "//appleid.apple.com"),
        ("ISSUER_APPLE_REVOKE_URL", "https://"),
        ("ISSUER_LOG_LEVEL", "loud"),
        ("ISSUER_LOG_FORMAT", "xml"),
    ])
    func invalidValue(setting: String, value: String) {
        #expect {
            try Configuration(environment: [setting: value])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            let line = error.description
            return error.setting == setting && line.contains(setting) && !line.contains("\n")
        }
    }

    @Test("secret values are never echoed in the error")
    func secretsNotEchoed() throws {
        let leaked = "c3VwZXItc2VjcmV0LXZhbHVl"
        let error = #expect(throws: ConfigurationError.self) { try Configuration(environment: ["ISSUER_SECRET": leaked]) }
        #expect(error?.description.contains(leaked) == false)
        let url = "postgresql://user:hunter2@[broken"
        let dbError = #expect(throws: ConfigurationError.self) { try Configuration(environment: ["ISSUER_DATABASE_URL": url]) }
        #expect(dbError?.description.contains("hunter2") == false)
        let portError = #expect(throws: ConfigurationError.self) { try Configuration(environment: ["ISSUER_PORT": "eighty"]) }
        #expect(portError?.description.contains("'eighty'") == true, "non-secret values are echoed to help the operator")
    }

    @Test("a secret given as a file (_FILE) is read with one trailing newline stripped")
    func secretFiles() throws {
        let directory = TestDirectories.make("secret-files")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let secret = Data((0..<32).map(UInt8.init)).base64EncodedString()
        let secretFile = directory.appendingPathComponent("issuer-secret")
        try Data((secret + "\n").utf8).write(to: secretFile)
        let databaseFile = directory.appendingPathComponent("database-url")
        try Data("postgresql://issuer@db.internal/issuer\n".utf8).write(to: databaseFile)
        let configuration = try Configuration(environment: [
            "ISSUER_SECRET_FILE": secretFile.path, "ISSUER_DATABASE_URL_FILE": databaseFile.path,
        ])
        #expect(configuration.secret?.revealed == Array(Data(base64Encoded: secret)!))
        #expect(configuration.databaseURL?.revealed == "postgresql://issuer@db.internal/issuer")

        // Only one newline goes: a second one is part of the value, and here makes it invalid.
        try Data((secret + "\n\n").utf8).write(to: secretFile)
        let twoNewlines = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["ISSUER_SECRET_FILE": secretFile.path])
        }
        #expect(twoNewlines?.setting == "ISSUER_SECRET")
    }

    @Test("both forms of a secret, or an unreadable or empty secret file, are configuration errors naming the setting")
    func secretFileErrors() throws {
        let directory = TestDirectories.make("secret-file-errors")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let secret = Data((0..<32).map(UInt8.init)).base64EncodedString()
        let secretFile = directory.appendingPathComponent("issuer-secret")
        try Data(secret.utf8).write(to: secretFile)
        let empty = directory.appendingPathComponent("empty")
        try Data().write(to: empty)

        let both = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["ISSUER_SECRET": secret, "ISSUER_SECRET_FILE": secretFile.path])
        }
        #expect(both?.setting == "ISSUER_SECRET")
        #expect(both?.description.contains("ISSUER_SECRET_FILE") == true)
        #expect(both?.description.contains(secret) == false)
        let bothURLs = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["ISSUER_DATABASE_URL": "postgresql://x/y", "ISSUER_DATABASE_URL_FILE": secretFile.path])
        }
        #expect(bothURLs?.setting == "ISSUER_DATABASE_URL")

        for (path, variable) in [
            (directory.appendingPathComponent("missing").path, "ISSUER_SECRET_FILE"),
            (directory.path, "ISSUER_SECRET_FILE"),
            (empty.path, "ISSUER_DATABASE_URL_FILE"),
        ] {
            let error = #expect(throws: ConfigurationError.self, "\(variable)=\(path)") {
                try Configuration(environment: [variable: path])
            }
            #expect(error?.setting == variable)
            #expect(error?.description.contains("\n") == false)
        }
    }

    @Test("Apple developer credentials must come together")
    func appleCredentialsTogether() throws {
        let keyFile = TestDirectories.make("AuthKey.p8")
        try FileManager.default.createDirectory(at: keyFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        // A throwaway P-256 key in Apple's .p8 form: the key is parsed at start (docs/reference.md, "Configuration").
        try """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgI5KjCyRJQ6nuyHiz
            yF6x/AL+275SuPw8tQCtL6PJqj2hRANCAATTuYEOOkFLnSgvRIrsGLBjLDt5JwP3
            s7aOTuzSfQ3p/pCgZX4UPtPdUiz77rYLAoqb06aJSdFY/+6bmujs8vmc
            -----END PRIVATE KEY-----

            """.write(to: keyFile, atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["ISSUER_APPLE_TEAM_ID": "TEAM123456"])
        }
        #expect(error?.setting == "ISSUER_APPLE_KEY_ID")
        let configuration = try Configuration(environment: [
            "ISSUER_APPLE_TEAM_ID": "TEAM123456", "ISSUER_APPLE_KEY_ID": "KEY1234567",
            "ISSUER_APPLE_PRIVATE_KEY_FILE": keyFile.path,
        ])
        #expect(configuration.appleCredentials?.teamID == "TEAM123456")
        try? FileManager.default.removeItem(at: keyFile.deletingLastPathComponent())
    }

    @Test("a valid clients file is read")
    func clientsFile() throws {
        let directory = TestDirectories.make("clients")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let good = directory.appendingPathComponent("good.json")
        try #"[{"client_id": "android", "redirect_uris": ["com.example:/cb"], "scopes": ["openid"]}]"#
            .write(to: good, atomically: true, encoding: .utf8)
        let configuration = try Configuration(environment: ["ISSUER_CLIENTS_FILE": good.path])
        #expect(configuration.clients.clients.map(\.clientID) == ["android"])
        #expect(configuration.clients.client(id: "clanboards-mobile") == nil)
    }

    @Test("a clients file that is not a valid list of clients is refused, naming ISSUER_CLIENTS_FILE", arguments: [
        ("malformed", "{not json"),
        ("empty", "[]"),
        ("duplicate", #"[{"client_id":"a","redirect_uris":["x:/a"],"scopes":["openid"]},{"client_id":"a","redirect_uris":["x:/b"],"scopes":["openid"]}]"#),
        ("relative redirect", #"[{"client_id":"a","redirect_uris":["/callback"],"scopes":["openid"]}]"#),
        ("no scopes", #"[{"client_id":"a","redirect_uris":["x:/a"],"scopes":[]}]"#),
        ("origin with a path", #"[{"client_id":"a","redirect_uris":["x:/a"],"scopes":["openid"],"allowed_origins":["https://app.example.com/"]}]"#),
    ])
    func clientsFileRefused(flaw: String, text: String) throws {
        try TestDirectories.withTemporary { directory in
            let file = directory.appendingPathComponent("clients.json")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let error = #expect(throws: ConfigurationError.self) {
                try Configuration(environment: ["ISSUER_CLIENTS_FILE": file.path])
            }
            #expect(error?.setting == "ISSUER_CLIENTS_FILE")
        }
    }

    @Test("a refused clients or providers file is one line naming the setting, the entry, the field and the file", arguments: [
        ("ISSUER_CLIENTS_FILE",
         #"[{"client_id":"web","redirect_uris":["https://app.example/cb"],"scopes":["openid"],"apple_audience":["com.example.web"]}]"#,
         "ISSUER_CLIENTS_FILE (--clients-file) entry 1 ('web') has an unknown member 'apple_audience'"),
        ("ISSUER_PROVIDERS_FILE", #"[{"id":"google","kind":"github","native_audiences":["w"]}]"#,
         #"ISSUER_PROVIDERS_FILE (--providers-file) entry 1 ('google'): the kind 'github' is not one this issuer knows ("google", "oidc" or "facebook")"#),
        ("ISSUER_PROVIDERS_FILE", #"[{"id":"corp","kind":"oidc","issuer":"https://appleid.apple.com/","native_audiences":["w"]}]"#,
         "ISSUER_PROVIDERS_FILE (--providers-file) entry 1 ('corp'): the issuer 'https://appleid.apple.com/' is Sign in with Apple's"),
    ])
    func registryFileLine(setting: String, text: String, start: String) throws {
        try TestDirectories.withTemporary { directory in
            let file = directory.appendingPathComponent("registry.json")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let error = #expect(throws: ConfigurationError.self) {
                try Configuration(environment: [setting: file.path])
            }
            let line = error?.description ?? ""
            #expect(line.hasPrefix("invalid configuration: \(start)"), "\(line)")
            // The path is where the problem is, not the value at fault.
            #expect(line.hasSuffix("(in the file '\(file.path)')"), "\(line)")
            #expect(!line.contains("\n"))
        }
    }

    @Test("every setting has a flag named after it")
    func flags() {
        let flags = ConfigurationSetting.all.map(\.flag)
        #expect(ConfigurationSetting.all.count == 39)
        #expect(Set(flags).count == flags.count)
        #expect(ConfigurationSetting.named("ISSUER_DATABASE_POOL_SIZE")?.flag == "database-pool-size")
        #expect(ConfigurationSetting.named("ISSUER_PORT")?.flag == "port")
    }
}

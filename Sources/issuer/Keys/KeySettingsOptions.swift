import ArgumentParser
import Foundation
import IssuerCore

/// The settings `issuer keys` uses (docs/reference.md, "Configuration"): the ring directory, and the token lifetimes and
/// reload interval that decide how long a retired key stays published (docs/reference.md, "Signing keys"). Each overrides
/// its environment variable, as `serve`'s flags do.
struct KeySettingsOptions: ParsableArguments {
    @Option(name: .customLong("keys-dir"), help: ArgumentHelp("the signing key ring directory (default ./keys)", valueName: "ISSUER_KEYS_DIR"))
    var keysDir: String?

    @Option(name: .customLong("access-token-ttl"), help: ArgumentHelp("access token lifetime in seconds (default 3600)", valueName: "ISSUER_ACCESS_TOKEN_TTL"))
    var accessTokenTtl: String?

    @Option(name: .customLong("id-token-ttl"), help: ArgumentHelp("ID token lifetime in seconds (default 3600)", valueName: "ISSUER_ID_TOKEN_TTL"))
    var idTokenTtl: String?

    @Option(name: .customLong("keys-reload-seconds"), help: ArgumentHelp("how often servers re-read the ring (default 5)", valueName: "ISSUER_KEYS_RELOAD_SECONDS"))
    var keysReloadSeconds: String?

    @OptionGroup var environmentFile: EnvironmentFileOption

    /// The settings a ring needs, and all that `issuer keys` reads: the directory, and the
    /// lifetimes and reload interval that decide how long a retired key stays published.
    static let ringSettings: Set = ["ISSUER_KEYS_DIR", "ISSUER_ACCESS_TOKEN_TTL", "ISSUER_ID_TOKEN_TTL", "ISSUER_KEYS_RELOAD_SECONDS"]

    /// The validated configuration; an invalid setting exits 1 with the one line docs/reference.md, "Configuration" asks for.
    ///
    /// Only ``ringSettings`` are read. The service's environment file also names its credentials
    /// (`ISSUER_DATABASE_URL_FILE`, `ISSUER_SECRET_FILE`: root-only files on a systemd host,
    /// docs/operations.md), which the ring's owner, who rotates it (`issuer-keys.service`), cannot
    /// and need not read. With `--env-file`, the file must name the ring (``ConfigurationLoader/unnamedKeyRing(environmentFile:settings:)``).
    func configuration() throws -> Configuration {
        let flags = [
            "ISSUER_KEYS_DIR": keysDir, "ISSUER_ACCESS_TOKEN_TTL": accessTokenTtl,
            "ISSUER_ID_TOKEN_TTL": idTokenTtl, "ISSUER_KEYS_RELOAD_SECONDS": keysReloadSeconds,
        ].compactMapValues { $0 }
        let settings = try ConfigurationLoader.settings(overrides: flags, environmentFile: environmentFile.path)
        if let unnamed = ConfigurationLoader.unnamedKeyRing(environmentFile: environmentFile.path, settings: settings) {
            throw unnamed
        }
        return try ConfigurationLoader.load(environment: settings.filter { Self.ringSettings.contains($0.key) })
    }

    /// The rotation operator over the configured directory, on the system clock; refused as
    /// root on a ring another user owns (``KeyRingOwnership``).
    func rotation() throws -> KeyRotation {
        let configuration = try configuration()
        try KeyRingOwnership.check(configuration.keysDirectory)
        return KeyRotation(
            store: KeyRingDirectory(directory: configuration.keysDirectory),
            policy: KeyRotationPolicy(configuration: configuration), clock: SystemClock())
    }
}

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

    /// The validated configuration; an invalid setting exits 1 with the one line docs/reference.md, "Configuration" asks for.
    func configuration() throws -> Configuration {
        let flags = [
            "ISSUER_KEYS_DIR": keysDir, "ISSUER_ACCESS_TOKEN_TTL": accessTokenTtl,
            "ISSUER_ID_TOKEN_TTL": idTokenTtl, "ISSUER_KEYS_RELOAD_SECONDS": keysReloadSeconds,
        ].compactMapValues { $0 }
        return try ConfigurationLoader.load(overrides: flags, environmentFile: environmentFile.path)
    }

    /// The rotation operator over the configured directory, on the system clock.
    func rotation() throws -> KeyRotation {
        let configuration = try configuration()
        return KeyRotation(
            store: KeyRingStore(directory: configuration.keysDirectory),
            policy: KeyRotationPolicy(configuration: configuration), clock: SystemClock())
    }
}

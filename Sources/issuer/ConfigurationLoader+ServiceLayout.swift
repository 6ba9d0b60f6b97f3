import Foundation

/// What `--env-file` promises (docs/cli.md, "`--env-file FILE`"): the file stands for the service's own
/// settings, so an admin command given it works on the service's database and key ring or stops
/// saying which setting the file lacks. The defaults that fill a gap without a file (the embedded
/// cluster under `.data/postgres`, the ring in `./keys`) are those of the directory the command
/// runs in, not the service's: with a file, they would be another database and another ring.
extension ConfigurationLoader {
    /// `ISSUER_DATABASE_URL` set neither in the file nor anywhere else: the line names the file,
    /// the setting it lacks and the form docs/operations.md's systemd layout writes there.
    static func missingDatabase(in environmentFile: String) -> CommandFailure {
        .usage("""
            ISSUER_DATABASE_URL is not set in \(environmentFile): add ISSUER_DATABASE_URL_FILE=/etc/issuer/credentials/database-url \
            (the file holding the service's database URL, as docs/operations.md lays it out) or ISSUER_DATABASE_URL; \
            with --env-file the embedded cluster is not used
            """)
    }

    /// The refusal when `environmentFile` was given and `settings` (``settings(overrides:environmentFile:)``)
    /// leave `ISSUER_KEYS_DIR` unset: the default `./keys` is relative to the service's working
    /// directory, which the file does not say, and a ring made there on the advice of an empty
    /// listing would be a second ring. An empty value counts as unset, as everywhere
    /// (docs/configuration.md).
    static func unnamedKeyRing(environmentFile: String?, settings: [String: String]) -> CommandFailure? {
        guard let environmentFile, (settings["ISSUER_KEYS_DIR"] ?? "").isEmpty else { return nil }
        return .usage("""
            ISSUER_KEYS_DIR is not set in \(environmentFile): the default ./keys is relative to the service's working \
            directory, not this one; add the service's ring there (ISSUER_KEYS_DIR=/var/lib/issuer/keys, as docs/operations.md lays it out)
            """)
    }
}

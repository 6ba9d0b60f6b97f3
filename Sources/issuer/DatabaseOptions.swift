import ArgumentParser

/// The database settings of the admin commands: `--database-url` over `ISSUER_DATABASE_URL`
/// (from the environment or `--env-file`); unset, the embedded cluster under `.data/postgres`
/// of the working directory, but only one that already exists (docs/cli.md).
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: ArgumentHelp("libpq connection URI; unset: an existing embedded PostgreSQL under .data/postgres", valueName: "ISSUER_DATABASE_URL"))
    var databaseURL: String?

    @OptionGroup var environmentFile: EnvironmentFileOption

    var overrides: [String: String] {
        databaseURL.map { ["ISSUER_DATABASE_URL": $0, "ISSUER_DATABASE_POOL_SIZE": "1"] } ?? ["ISSUER_DATABASE_POOL_SIZE": "1"]
    }
}

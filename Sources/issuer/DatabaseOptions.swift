import ArgumentParser

/// The database settings of the admin commands: `--database-url` over `ISSUER_DATABASE_URL`;
/// unset, the embedded cluster under `.data/postgres` of the working directory.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: ArgumentHelp("libpq connection URI; unset: the embedded PostgreSQL under .data/postgres", valueName: "ISSUER_DATABASE_URL"))
    var databaseURL: String?

    var overrides: [String: String] {
        databaseURL.map { ["ISSUER_DATABASE_URL": $0, "ISSUER_DATABASE_POOL_SIZE": "1"] } ?? ["ISSUER_DATABASE_POOL_SIZE": "1"]
    }
}

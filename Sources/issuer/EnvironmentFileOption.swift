import ArgumentParser

/// `--env-file FILE`, on every command that reads settings: the unit's `EnvironmentFile`
/// (`/etc/issuer/issuer.env`), so that an admin command run by hand on a server host talks to
/// the database and key ring the service uses.
struct EnvironmentFileOption: ParsableArguments {
    @Option(
        name: .customLong("env-file"),
        help: ArgumentHelp(
            "read settings from this file of KEY=value lines (systemd's EnvironmentFile format); its values override the environment, flags override both",
            valueName: "file"))
    var path: String?
}

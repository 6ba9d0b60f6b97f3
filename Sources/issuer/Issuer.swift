import ArgumentParser

/// The one binary operators run (docs/cli.md). `@main` lives here, not in `main.swift`: an
/// `AsyncParsableCommand` started from `main.swift` silently takes the synchronous entry point.
/// Its `main()` is `Issuer+Main`'s, which maps failures to the documented exit statuses.
@main
struct Issuer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issuer",
        abstract: "An OpenID Connect issuer for mobile apps that sign in with Apple.",
        discussion: "Every setting is an environment variable (ISSUER_*); `serve` also takes each as a flag. See docs/configuration.md or `issuer config reference`.",
        version: IssuerVersion.description,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, KeysCommand.self, SessionsCommand.self, UsersCommand.self,
            AppleCommand.self, ConfigCommand.self, DoctorCommand.self, DevCommand.self,
        ]
    )
}

import ArgumentParser

/// `issuer config` (docs/reference.md, "Admin CLI"): the configuration, checked or documented, without serving.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the configuration, or print its reference.",
        subcommands: [ConfigCheckCommand.self, ConfigReferenceCommand.self])
}

import ArgumentParser
import IssuerCore

/// `issuer config reference`: docs/configuration.md, generated from the settings table, so the
/// documentation of a binary is the one it was built with.
struct ConfigReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reference",
        abstract: "Print the configuration reference (docs/configuration.md) as Markdown.")

    func run() {
        print(ConfigurationReference.markdown, terminator: "")
    }
}

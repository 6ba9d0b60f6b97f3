import ArgumentParser
import Foundation
import IssuerCore

/// `issuer users show SUB` and `issuer users delete SUB` (docs/cli.md).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Show or delete users.", subcommands: [UsersShowCommand.self, UsersDeleteCommand.self])
}

import ArgumentParser
import Foundation
import IssuerCore

/// `issuer users show SUB`, `issuer users find` and `issuer users delete SUB` (docs/cli.md).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Show, find or delete users.",
        subcommands: [UsersShowCommand.self, UsersFindCommand.self, UsersDeleteCommand.self])
}

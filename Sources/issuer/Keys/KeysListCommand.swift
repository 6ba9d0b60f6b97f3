import ArgumentParser
import Foundation
import IssuerCore

/// `issuer keys list` (SPEC §6): kid, state, created, activated, retired, published until — one
/// aligned row per key, times in UTC.
struct KeysListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the keys: kid, state, created, activated, retired, published until.")

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: KeySettingsOptions

    func run() throws {
        let configuration = try settings.configuration()
        let store = KeyRingStore(directory: configuration.keysDirectory)
        let ring = try KeysCommand.run("list") { try store.load() }
        guard !ring.isEmpty else {
            print("the key ring in \(store.directory.path) is empty: run `issuer keys init`")
            return
        }
        let now = SystemClock().now
        let header = ["KID", "STATE", "CREATED", "ACTIVATED", "RETIRED", "PUBLISHED UNTIL"]
        let rows = ring.keys.map { key in
            let until: String
            switch key.state {
            case .active, .next: until = "(while \(key.state.rawValue))"
            case .retired: until = Self.format(key.publishedUntil) + (key.isPublished(at: now) ? "" : " (prunable)")
            }
            return [key.kid, key.state.rawValue, Self.format(key.createdAt), Self.format(key.activatedAt), Self.format(key.retiredAt), until]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            print(cells.joined(separator: "  "))
        }
    }

    private static func format(_ date: Date?) -> String {
        date?.ISO8601Format() ?? "-"
    }
}

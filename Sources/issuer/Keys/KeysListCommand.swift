import ArgumentParser
import Foundation
import IssuerCore

/// `issuer keys list`: kid, state, created, activated, retired, published until — one aligned
/// row per key, times in UTC; or one JSON document with `--output json` (docs/cli.md).
struct KeysListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the keys: kid, state, created, activated, retired, published until.")

    @OptionGroup var output: OutputOptions

    @OptionGroup(title: "Settings (each overrides its environment variable)")
    var settings: KeySettingsOptions

    func run() throws {
        let configuration = try settings.configuration()
        let store = KeyRingDirectory(directory: configuration.keysDirectory)
        let ring = try KeysCommand.run("list") { try store.load() }
        let now = SystemClock().now
        if output.isJSON {
            JSONValue.object([
                "directory": .string(store.directory.path),
                "keys": .array(ring.keys.map { key in
                    .object([
                        "kid": .string(key.kid), "state": .string(key.state.rawValue), "created_at": .date(key.createdAt),
                        "activated_at": .date(key.activatedAt), "retired_at": .date(key.retiredAt),
                        "published_until": .date(key.publishedUntil), "published": .bool(key.isPublished(at: now)),
                    ])
                }),
            ]).print()
            try Self.refuseEmpty(ring, in: store)
            return
        }
        try Self.refuseEmpty(ring, in: store)
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

    /// docs/cli.md, "Exit statuses": a ring with no keys is 3, not found, so a script tells "no
    /// ring here yet" from a ring it can use (the JSON document, with no keys, is printed first).
    /// A directory that does not exist is not advised `keys init`: when ISSUER_KEYS_DIR names the
    /// wrong place, a ring made there would be a second ring beside the service's.
    private static func refuseEmpty(_ ring: KeyRing, in store: KeyRingDirectory) throws {
        guard ring.isEmpty else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store.directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(
                .notFound, "no key ring at \(store.directory.path): the directory does not exist; check ISSUER_KEYS_DIR (a new installation makes its ring there with `issuer keys init`)",
                command: "keys list")
        }
        throw CommandFailure(.notFound, "the key ring in \(store.directory.path) is empty: run `issuer keys init`", command: "keys list")
    }

    private static func format(_ date: Date?) -> String {
        date?.ISO8601Format() ?? "-"
    }
}

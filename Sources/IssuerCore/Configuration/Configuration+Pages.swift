import Foundation

extension Configuration {
    /// ISSUER_DISPLAY_NAME (docs/reference.md, "The pages people see"): a name on one line, as an
    /// app's name would be written.
    static func displayName(_ reader: ConfigurationReader) throws -> String {
        guard let name = reader.string("ISSUER_DISPLAY_NAME") else { return defaultDisplayName }
        guard name.count <= 100, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw reader.invalid("ISSUER_DISPLAY_NAME", "must be a name of at most 100 characters on one line")
        }
        return name
    }

    /// ISSUER_PAGES_DIR, read, and every client's `logo` read from it (docs/reference.md, "The
    /// pages people see"): a logo that is missing, of another type or too large stops the server
    /// at start naming the clients file, where it is named, rather than showing a broken image.
    static func pages(_ reader: ConfigurationReader, clients: ClientRegistry) throws -> PageSettings {
        var pages = PageSettings.builtIn
        if let directory = try reader.readableDirectory("ISSUER_PAGES_DIR") {
            do throws(PageSettings.Problem) {
                pages = try PageSettings(directory: directory)
            } catch {
                throw ConfigurationError(setting: "ISSUER_PAGES_DIR", problem: "\(error.description) (in '\(directory.path)')")
            }
        }
        for client in clients.clients {
            guard let logo = client.logo else { continue }
            do throws(PageImage.Problem) {
                try pages.addImage(logo)
            } catch {
                throw ConfigurationError(
                    setting: "ISSUER_CLIENTS_FILE",
                    problem: "client '\(client.clientID)' has the logo \(ConfigurationJSON.quoted(logo)), which \(error.description)")
            }
        }
        return pages
    }
}

import Foundation

/// What `ISSUER_PAGES_DIR` makes of the pages people see (docs/reference.md, "The pages people
/// see"), read and checked once at start: `theme.json` (colours and a logo), `messages/<language>.json`
/// (wording, per language), and the logo files the theme and the clients file name. Without the
/// directory, the built-in look and catalogue.
public struct PageSettings: Sendable, Equatable {
    /// `ISSUER_PAGES_DIR`; nil when unset.
    public let directory: URL?
    public let theme: PageTheme
    public let catalogue: MessageCatalogue
    /// Every logo read, by the file name that named it.
    public private(set) var images: [String: PageImage]

    public static let builtIn = PageSettings(directory: nil, theme: .builtIn, catalogue: .builtIn, images: [:])

    /// Why the directory was refused, phrased to follow `ISSUER_PAGES_DIR`.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    private init(directory: URL?, theme: PageTheme, catalogue: MessageCatalogue, images: [String: PageImage]) {
        self.directory = directory
        self.theme = theme
        self.catalogue = catalogue
        self.images = images
    }

    /// Reads `directory`: each part is optional, and each part present must be right.
    public init(directory: URL) throws(Problem) {
        let fileManager = FileManager.default
        var theme = PageTheme.builtIn
        let themeFile = directory.appendingPathComponent("theme.json")
        if fileManager.fileExists(atPath: themeFile.path) {
            guard let data = try? Data(contentsOf: themeFile) else { throw Problem(description: "has a theme.json that cannot be read") }
            do throws(PageTheme.Problem) {
                theme = try PageTheme(json: data)
            } catch {
                throw Problem(description: "has a theme.json that \(error.description)")
            }
        }
        var catalogue = MessageCatalogue.builtIn
        let messages = directory.appendingPathComponent("messages", isDirectory: true)
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: messages.path, isDirectory: &isDirectory), isDirectory.boolValue {
            guard let names = try? fileManager.contentsOfDirectory(atPath: messages.path) else {
                throw Problem(description: "has a messages directory that cannot be read")
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let tag = String(name.dropLast(".json".count)).lowercased()
                guard name.hasSuffix(".json"), tag != "*", LanguagePreference.isLanguageRange(tag) else {
                    throw Problem(description: "has messages/\(name), which is not named <language>.json (en.json, fr.json, pt-BR.json)")
                }
                guard let data = try? Data(contentsOf: messages.appendingPathComponent(name)) else {
                    throw Problem(description: "has messages/\(name), which cannot be read")
                }
                catalogue = catalogue.overriding(tag, with: try Self.sentences(data, file: "messages/\(name)"))
            }
        }
        self.init(directory: directory, theme: theme, catalogue: catalogue, images: [:])
        if let logo = theme.logo {
            do throws(PageImage.Problem) {
                _ = try addImage(logo)
            } catch {
                throw Problem(description: "has a theme.json whose logo \(ConfigurationJSON.quoted(logo)) \(error.description)")
            }
        }
    }

    /// Reads the logo `file` (once, however many clients name it).
    @discardableResult
    public mutating func addImage(_ file: String) throws(PageImage.Problem) -> PageImage {
        if let image = images[file] { return image }
        guard let directory else {
            throw PageImage.Problem(description: "needs ISSUER_PAGES_DIR, the directory logos are read from, which is not set")
        }
        let image = try PageImage(file: file, in: directory)
        images[file] = image
        return image
    }

    /// The theme's logo, when it has one.
    public var logo: PageImage? { theme.logo.flatMap { images[$0] } }

    /// A `messages/<language>.json`: one JSON object of known keys to sentences.
    static func sentences(_ data: Data, file: String) throws(Problem) -> [PageMessage.Key: String] {
        do throws(ConfigurationJSON.Problem) {
            _ = try ConfigurationJSON.objectMembers(
                in: data, of: "of message keys", known: Set(PageMessage.Key.allCases.map(\.rawValue)))
        } catch {
            throw Problem(description: "has \(file), which \(error.description)")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Problem(description: "has \(file), which is not valid JSON")
        }
        var sentences: [PageMessage.Key: String] = [:]
        for (name, value) in object {
            guard let key = PageMessage.Key(rawValue: name) else { continue }
            guard let sentence = value as? String else { throw Problem(description: "has \(file), whose \(name) must be a string") }
            if let problem = MessageCatalogue.problem(with: sentence, for: key) {
                throw Problem(description: "has \(file), whose \(name) \(problem)")
            }
            sentences[key] = sentence
        }
        return sentences
    }
}

import Foundation
import IssuerCore
import IssuerStorage
import Testing
import TestSupport

/// docs/reference.md, "The pages people see": the reader's language from `Accept-Language`, the
/// message catalogue and what `ISSUER_PAGES_DIR` lays over it, the theme, and the logos a
/// clients file names.
@Suite("The pages' languages, catalogue, theme and logos (reference: The pages people see)")
struct PageSettingsTests {
    static let available: Set<String> = ["en", "fr", "de"]

    @Test("Accept-Language: the highest q-value we have, tags cut to what we have (fr-CH → fr); q=0, malformed entries and * leave English", arguments: [
        (nil, "en"),
        ("", "en"),
        ("fr", "fr"),
        ("fr-CH, fr;q=0.9, en;q=0.8", "fr"),
        ("de;q=0.5, fr;q=0.9", "fr"),
        ("es, pt-BR;q=0.9, de;q=0.1", "de"),
        ("de;q=0.8, fr;q=0.8", "de"),
        ("fr;q=0, de", "de"),
        ("fr;q=0", "en"),
        ("es, *;q=0.5, fr;q=0.4", "en"),
        ("FR-ca", "fr"),
        ("de-DE-x-private", "de"),
        ("fr;q=2, de", "de"),
        ("fr;q=0.1234, de;q=0.5", "de"),
        ("fr;level=1, de", "de"),
        ("f%r, de;q=0.3", "de"),
        ("en;q=0.9, fr", "fr"),
        ("fr ; q = 0.5 , de ; q = 0.4", "fr"),
    ] as [(String?, String)])
    func negotiation(_ header: String?, _ expected: String) {
        #expect(LanguagePreference(acceptLanguage: header).language(among: Self.available) == expected)
    }

    @Test("a header of a thousand ranges is read only so far, and still answers")
    func boundedHeader() {
        let header = Array(repeating: "xx", count: 1000).joined(separator: ", ") + ", fr"
        #expect(LanguagePreference(acceptLanguage: header).language(among: Self.available) == "en")
        #expect(LanguagePreference(acceptLanguage: header).ranges.count <= 32)
    }

    @Test("every built-in language has every key, with only that key's placeholders")
    func builtInComplete() {
        let catalogue = MessageCatalogue.builtIn
        #expect(catalogue.languageTags == ["en", "fr", "de"])
        for (language, sentences) in catalogue.languages {
            let missing = Set(PageMessage.Key.allCases).subtracting(sentences.keys)
            #expect(missing.isEmpty, "\(language) lacks \(missing.map(\.rawValue).sorted())")
            for (key, sentence) in sentences {
                let used = Set(sentence.split(separator: "{").dropFirst().compactMap { $0.split(separator: "}").first.map(String.init) })
                #expect(used.isSubset(of: key.placeholders), "\(language) \(key.rawValue): \(sentence)")
            }
        }
    }

    @Test("docs/reference.md lists every message key, as a translator needs them")
    func keysDocumented() throws {
        let reference = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/reference.md"),
            encoding: .utf8)
        for key in PageMessage.Key.allCases {
            #expect(reference.contains("| `\(key.rawValue)` |"), "\(key.rawValue)")
        }
    }

    @Test("placeholders are filled once: a value holding {app} is not filled again")
    func placeholdersFilledOnce() {
        let catalogue = MessageCatalogue.builtIn
        #expect(catalogue.sentence(PageMessage(.signInPromptForApp, ["app": "{app} & Co"]), in: "en")
            == "Choose how you want to sign in to {app} & Co.")
        #expect(catalogue.sentence(PageMessage(.parameterMissing, ["parameter": "client_id"]), in: "fr")
            == "Le paramètre client_id est obligatoire.")
        #expect(catalogue.sentence(PageMessage(.signInHeading), in: "pt-br") == "Sign in", "no Portuguese: English")
    }

    /// `Configuration` read with `ISSUER_PAGES_DIR` holding `files`, and `environment` beside it.
    static func configuration(
        _ files: [String: String], bytes: [String: [UInt8]] = [:], environment: [String: String] = [:]
    ) throws -> Configuration {
        try TestDirectories.withTemporary("pages") { pages in
            for (name, data) in files.mapValues({ Data($0.utf8) }).merging(bytes.mapValues { Data($0) }, uniquingKeysWith: { $1 }) {
                let file = pages.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: file)
            }
            var environment = environment
            environment["ISSUER_PAGES_DIR"] = pages.path
            for (name, value) in environment { environment[name] = value.replacingOccurrences(of: "$PAGES", with: pages.path) }
            return try Configuration(environment: environment)
        }
    }

    @Test("messages/<language>.json in ISSUER_PAGES_DIR replaces a built-in language's sentences one by one and adds a language")
    func catalogueOverride() throws {
        let configuration = try Self.configuration([
            "messages/en.json": #"{"sign_in.prompt": "Pick how to get in.", "sign_in.prompt_app": "Into {app}, then."}"#,
            "messages/pt-BR.json": #"{"sign_in.heading": "Entrar"}"#,
            "messages/.DS_Store": "ignored",
        ])
        let catalogue = configuration.pages.catalogue
        #expect(catalogue.sentence(PageMessage(.signInPrompt), in: "en") == "Pick how to get in.")
        #expect(catalogue.sentence(PageMessage(.signInPromptForApp, ["app": "Clanboards"]), in: "en") == "Into Clanboards, then.")
        #expect(catalogue.sentence(PageMessage(.signInWithApple), in: "en") == "Sign in with Apple", "the other keys stay")
        #expect(catalogue.sentence(PageMessage(.signInPrompt), in: "fr") == "Choisissez comment vous connecter.", "French stays")
        #expect(catalogue.languageTags == ["en", "fr", "de", "pt-br"])
        #expect(catalogue.sentence(PageMessage(.signInHeading), in: "pt-br") == "Entrar")
        #expect(catalogue.sentence(PageMessage(.signInWithApple), in: "pt-br") == "Sign in with Apple", "what it lacks is English")
        #expect(LanguagePreference(acceptLanguage: "pt-BR, fr;q=0.5").language(among: catalogue.languageTags) == "pt-br")
        #expect(configuration.effectiveSettings.first { $0.setting.variable == "ISSUER_PAGES_DIR" }?.value != nil)
    }

    @Test("a messages file or theme that is wrong stops the server naming ISSUER_PAGES_DIR and what is wrong", arguments: [
        (["messages/en.json": #"{"sign_in.promt": "x"}"#], "unknown member 'sign_in.promt'"),
        (["messages/en.json": #"{"sign_in.prompt_app": "Into {ap}"}"#], "uses the placeholder {ap}; it may use {app}"),
        (["messages/en.json": #"{"sign_in.prompt": ""}"#], "sign_in.prompt is empty"),
        (["messages/en.json": #"{"sign_in.prompt": "a", "sign_in.prompt": "b"}"#], "'sign_in.prompt' twice"),
        (["messages/en.json": #"{"sign_in.prompt": 7}"#], "must be a string"),
        (["messages/en.json": #"["sign_in.prompt"]"#], "must be one JSON object"),
        (["messages/en.json": #"{"sign_in.prompt": "a",}"#], "trailing comma"),
        (["messages/french.txt": "{}"], "messages/french.txt, which is not named <language>.json"),
        (["theme.json": #"{"accent": "blue"}"#], "accent 'blue', which must be a colour written #rrggbb or #rgb"),
        (["theme.json": ##"{"accent": "#000;}body{display:none"}"##], "must be a colour"),
        (["theme.json": ##"{"text": "#bbbbbb"}"##], "text #bbbbbb on surface #ffffff at a contrast of 1.92:1"),
        (["theme.json": ##"{"dark_muted": "#333"}"##], "dark_muted #333333 on dark_surface"),
        // The border is a neutral provider button's only edge (WCAG 1.4.11).
        (["theme.json": ##"{"border": "#dddddd"}"##], "border #dddddd on surface #ffffff at a contrast of 1.36:1"),
        (["theme.json": ##"{"colour": "#000"}"##], "unknown member 'colour'"),
        (["theme.json": #"{"logo": "missing.svg"}"#], "logo 'missing.svg' is not a readable file"),
    ] as [([String: String], String)])
    func refusedDirectory(_ files: [String: String], _ problem: String) throws {
        do {
            _ = try Self.configuration(files)
            Issue.record("accepted \(files)")
        } catch let error as ConfigurationError {
            #expect(error.setting == "ISSUER_PAGES_DIR")
            #expect(error.problem.contains(problem), "\(error.problem)")
        }
    }

    @Test("a theme's colours and logo are read; the pages dir must be a directory")
    func theme() throws {
        let configuration = try Self.configuration([
            "theme.json": ##"{"logo": "brand/logo.svg", "accent": "#7A1FA2", "dark_background": "#000"}"##,
            "brand/logo.svg": #"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>"#,
        ])
        #expect(configuration.pages.theme.light.accent == PageColor("#7a1fa2"))
        #expect(configuration.pages.theme.dark.background == PageColor(red: 0, green: 0, blue: 0))
        #expect(configuration.pages.theme.light.surface == PageTheme.builtIn.light.surface, "what it does not say is built in")
        #expect(configuration.pages.logo?.mediaType == "image/svg+xml")
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["ISSUER_PAGES_DIR": "/nonexistent/pages"]) }
    }

    /// A clients file with one client whose `logo` is `logo`.
    static func clientsFile(logo: String) -> String {
        #"[{"client_id": "web", "redirect_uris": ["https://app.example/cb"], "scopes": ["openid"], "client_name": "Clanboards", "logo": "\#(logo)"}]"#
    }

    @Test("a client's logo is a file of ISSUER_PAGES_DIR, read at start: its image, media type and hashed name")
    func clientLogo() throws {
        let configuration = try Self.configuration(
            ["clients.json": Self.clientsFile(logo: "logos/app.png")],
            bytes: ["logos/app.png": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x41]],
            environment: ["ISSUER_CLIENTS_FILE": "$PAGES/clients.json"])
        let client = try #require(configuration.clients.client(id: "web"))
        #expect(client.logo == "logos/app.png" && client.clientName == "Clanboards")
        let image = try #require(configuration.pages.images["logos/app.png"])
        #expect(image.mediaType == "image/png")
        #expect(image.assetName.count == 36 && image.assetName.hasSuffix(".png"))
        let hexDigits = image.assetName.dropLast(4).allSatisfy { $0.isHexDigit }
        #expect(hexDigits)
    }

    @Test("a client's logo that is not a readable image of ISSUER_PAGES_DIR stops the server naming ISSUER_CLIENTS_FILE", arguments: [
        ("missing.png", [:], "is not a readable file"),
        ("fake.png", ["fake.png": "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"], "does not hold what its extension says (image/png)"),
        ("logo.gif", ["logo.gif": "GIF89a"], "must be a .png, .jpg, .webp or .svg file"),
        ("empty.svg", ["empty.svg": ""], "must hold 1 to 512 KiB"),
    ] as [(String, [String: String], String)])
    func refusedLogo(_ logo: String, _ files: [String: String], _ problem: String) throws {
        do {
            _ = try Self.configuration(
                files.merging(["clients.json": Self.clientsFile(logo: logo)]) { $1 }, environment: ["ISSUER_CLIENTS_FILE": "$PAGES/clients.json"])
            Issue.record("accepted the logo \(logo)")
        } catch let error as ConfigurationError {
            #expect(error.setting == "ISSUER_CLIENTS_FILE")
            #expect(error.problem.contains("client 'web' has the logo '\(logo)', which \(problem)"), "\(error.problem)")
        }
    }

    @Test("logo is a known member of the clients file; one that leaves the directory is refused by name, and one without ISSUER_PAGES_DIR at start")
    func logoMember() throws {
        let registry = try ClientsFile.load(Self.clientsFile(logo: "app.svg"))
        #expect(registry.client(id: "web")?.logo == "app.svg")
        for name in ["../secret.png", "/etc/logo.png", "a//b.png", "./a.png", "a\\\\b.png"] {
            #expect(throws: ClientRegistry.Problem.self, "\(name)") { try ClientsFile.load(Self.clientsFile(logo: name)) }
        }
        try TestDirectories.withTemporary("clients") { directory in
            let file = directory.appendingPathComponent("clients.json")
            try Self.clientsFile(logo: "app.svg").write(to: file, atomically: true, encoding: .utf8)
            do {
                _ = try Configuration(environment: ["ISSUER_CLIENTS_FILE": file.path])
                Issue.record("a logo without ISSUER_PAGES_DIR was accepted")
            } catch let error as ConfigurationError {
                #expect(error.setting == "ISSUER_CLIENTS_FILE")
                #expect(error.problem.contains("needs ISSUER_PAGES_DIR"))
            }
        }
    }

    @Test("ISSUER_DISPLAY_NAME: a name on one line of at most 100 characters")
    func displayName() throws {
        #expect(try Configuration(environment: ["ISSUER_DISPLAY_NAME": "Example"]).displayName == "Example")
        #expect(try Configuration(environment: [:]).displayName == "Sign in")
        #expect(try Configuration(environment: [:]).pagesDisplayName == nil)
        #expect(try Configuration(environment: ["ISSUER_DISPLAY_NAME": "Example"]).pagesDisplayName == "Example")
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["ISSUER_DISPLAY_NAME": "a\nb"]) }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["ISSUER_DISPLAY_NAME": String(repeating: "x", count: 101)]) }
    }

    @Test("WCAG 2.2 contrast: black on white is 21:1, the built-in palettes pass")
    func contrast() throws {
        let black = try #require(PageColor("#000"))
        let white = try #require(PageColor("#FFFFFF"))
        #expect(abs(black.contrast(with: white) - 21) < 0.001)
        #expect(PageColor("#12345") == nil && PageColor("123456") == nil && PageColor("#ggg") == nil)
        #expect(PageTheme.builtIn.light.text.contrast(with: PageTheme.builtIn.light.surface) >= 4.5)
        #expect(PageTheme.builtIn.dark.muted.contrast(with: PageTheme.builtIn.dark.surface) >= 4.5)
    }
}

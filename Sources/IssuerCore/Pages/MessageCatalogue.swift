/// Every sentence of the pages people see, by language (docs/reference.md, "The pages people
/// see"): English, French and German built in; an operator's `messages/<language>.json` in
/// `ISSUER_PAGES_DIR` rewords a built-in language or adds one, without a rebuild.
///
/// A sentence missing from a language falls back along its tag (`pt-br` to `pt`) and then to
/// English, which always has every key, so a partial translation still shows a whole page.
public struct MessageCatalogue: Sendable, Equatable {
    /// The language every page can fall back to.
    public static let fallbackLanguage = "en"

    /// Language tags, lower case, to their sentences.
    public private(set) var languages: [String: [PageMessage.Key: String]]

    /// The catalogue shipped in the binary.
    public static let builtIn = MessageCatalogue(languages: [
        "en": Self.english,
        "fr": Self.french,
        "de": Self.german,
    ])

    init(languages: [String: [PageMessage.Key: String]]) {
        self.languages = languages
    }

    /// The tags a reader's `Accept-Language` can be answered in.
    public var languageTags: Set<String> { Set(languages.keys) }

    /// This catalogue with `sentences` laid over `language`'s (a new language when it has none).
    public func overriding(_ language: String, with sentences: [PageMessage.Key: String]) -> MessageCatalogue {
        var copy = self
        copy.languages[language.lowercased(), default: [:]].merge(sentences) { _, new in new }
        return copy
    }

    /// `message` in `language`, its placeholders filled; not escaped (the page escapes it).
    public func sentence(_ message: PageMessage, in language: String) -> String {
        Self.fill(template(message.key, in: language), with: message.arguments)
    }

    /// The sentence for `key` in `language` or the nearest language that has it.
    func template(_ key: PageMessage.Key, in language: String) -> String {
        var tag = language.lowercased()
        while true {
            if let sentence = languages[tag]?[key] { return sentence }
            guard let cut = tag.lastIndex(of: "-") else { break }
            tag = String(tag[..<cut])
        }
        return languages[Self.fallbackLanguage]?[key] ?? Self.english[key] ?? key.rawValue
    }

    /// `{name}` replaced by `arguments[name]` in one pass, so a value that itself holds `{…}` is
    /// never filled again; an unknown name stays as written.
    static func fill(_ template: String, with arguments: [String: String]) -> String {
        guard !arguments.isEmpty, template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = arguments[name] {
                result += value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The placeholders `sentence` uses (`{app}` → `app`).
    static func placeholders(in sentence: String) -> Set<String> {
        var names = Set<String>()
        var rest = sentence[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// Why `sentence` cannot stand for `key`, or nil: it must say something, on one line, in at
    /// most 500 characters, with only the key's placeholders (a misspelt `{ap}` would show as is).
    static func problem(with sentence: String, for key: PageMessage.Key) -> String? {
        if sentence.trimmingCharacters(in: .whitespaces).isEmpty { return "is empty" }
        if sentence.count > 500 { return "is longer than 500 characters" }
        if sentence.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "holds a control character (a line break included)"
        }
        let unknown = placeholders(in: sentence).subtracting(key.placeholders)
        if let name = unknown.sorted().first {
            let allowed = key.placeholders.sorted().map { "{\($0)}" }.joined(separator: ", ")
            return "uses the placeholder {\(name)}; it may use " + (allowed.isEmpty ? "none" : allowed)
        }
        return nil
    }
}

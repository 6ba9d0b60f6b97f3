import Foundation

/// Reads typed values out of the environment-shaped dictionary `Configuration` is built from,
/// turning every bad value into a `ConfigurationError` that names its setting.
///
/// An empty value counts as unset, so `ISSUER_SECRET=` in a deployment file means "no secret",
/// not "an invalid secret".
struct ConfigurationReader {
    let environment: [String: String]

    func string(_ name: String) -> String? {
        guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    func string(_ name: String, default fallback: String) -> String {
        string(name) ?? fallback
    }

    /// Echoes the bad value back, unless the setting holds a secret.
    func invalid(_ name: String, _ problem: String) -> ConfigurationError {
        let secret = ConfigurationSetting.named(name)?.isSecret ?? false
        guard !secret, let value = string(name) else { return ConfigurationError(setting: name, problem: problem) }
        return ConfigurationError(setting: name, problem: "\(problem) (got '\(value)')")
    }

    func positiveInt(_ name: String, default fallback: Int, max: Int = Int(Int32.max)) throws -> Int {
        guard let text = string(name) else { return fallback }
        guard let value = Int(text), value > 0, value <= max else {
            throw invalid(name, "must be a whole number from 1 to \(max)")
        }
        return value
    }

    func bool(_ name: String, default fallback: Bool) throws -> Bool {
        guard let text = string(name) else { return fallback }
        switch text.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw invalid(name, "must be true or false")
        }
    }

    /// An absolute http(s) URL with a host and neither query nor fragment.
    func url(_ name: String, default fallback: String) throws -> URL {
        let text = string(name, default: fallback)
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil, let url = components.url
        else {
            throw invalid(name, "must be an absolute http or https URL without query or fragment")
        }
        return url
    }

    /// docs/reference.md, "Faults and bad input": a URL the server fetches (Apple's endpoints) is `https`, or plain `http` to a
    /// loopback address only, so a misconfiguration is refused at start, not sent in clear.
    func remoteURL(_ name: String, default fallback: String) throws -> URL {
        let url = try url(name, default: fallback)
        guard url.isSecureOrLoopback else {
            throw invalid(name, "must be an https URL (plain http only to a loopback address such as 127.0.0.1)")
        }
        return url
    }

    func readableFile(_ name: String) throws -> URL? {
        guard let path = string(name) else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: path)
        else { throw invalid(name, "must name a readable file") }
        return URL(fileURLWithPath: path)
    }

    func readableDirectory(_ name: String) throws -> URL? {
        guard let path = string(name) else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: path)
        else { throw invalid(name, "must name a readable directory") }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    func list(_ name: String) throws -> [String]? {
        guard let text = string(name) else { return nil }
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !items.contains(where: \.isEmpty) else { throw invalid(name, "must be a comma-separated list without empty items") }
        return items
    }
}

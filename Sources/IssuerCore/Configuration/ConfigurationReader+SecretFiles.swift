import Foundation

extension ConfigurationReader {
    /// `environment` with every secret's `_FILE` form (docs/reference.md, "Configuration") replaced by the value read from
    /// that file, one trailing newline stripped, so the rest of the configuration sees one
    /// variable per setting whichever form was used.
    ///
    /// Both forms set is refused rather than one silently winning: the two usually come from two
    /// layers of a deployment (an image's environment, a mounted secret) and the operator must
    /// learn that one of them is not in force. An unreadable or empty file is refused too: a
    /// secret volume that failed to mount must not quietly become "no secret".
    static func resolvingSecretFiles(_ environment: [String: String]) throws -> [String: String] {
        var resolved = environment
        let reader = ConfigurationReader(environment: environment)
        for setting in ConfigurationSetting.all {
            guard let fileVariable = setting.fileVariable, let path = reader.string(fileVariable) else { continue }
            resolved[fileVariable] = nil
            if reader.string(setting.variable) != nil {
                throw ConfigurationError(
                    setting: setting.variable,
                    problem: "is set both directly and through \(fileVariable); set only one of them")
            }
            resolved[setting.variable] = try readSecretFile(path, variable: fileVariable)
        }
        return resolved
    }

    private static func readSecretFile(_ path: String, variable: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = FileManager.default.contents(atPath: path)
        else {
            throw ConfigurationError(setting: variable, problem: "must name a readable file (\(path) cannot be read)")
        }
        guard var value = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(setting: variable, problem: "must name a UTF-8 text file (\(path) is not)")
        }
        // One newline, as `echo` and editors leave it; anything more is part of the value.
        if value.hasSuffix("\r\n") {
            value.removeLast(2)
        } else if value.hasSuffix("\n") {
            value.removeLast()
        }
        guard !value.isEmpty else {
            throw ConfigurationError(setting: variable, problem: "names an empty file (\(path))")
        }
        return value
    }
}

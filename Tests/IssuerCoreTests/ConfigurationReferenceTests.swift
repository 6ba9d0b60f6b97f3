import Foundation
@testable import IssuerCore
@testable import IssuerStorage
import Testing

/// Issue 13: docs/configuration.md is generated from the settings table, and the table says
/// what the code does.
@Suite("The configuration reference")
struct ConfigurationReferenceTests {
    static let documentFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/configuration.md")

    @Test("docs/configuration.md is what `issuer config reference` prints (regenerate: issuer config reference > docs/configuration.md)")
    func documentIsGenerated() throws {
        let document = try String(contentsOf: Self.documentFile, encoding: .utf8)
        #expect(document == ConfigurationReference.markdown)
    }

    @Test("every setting is in the reference, once, under its section")
    func everySettingDocumented() {
        let markdown = ConfigurationReference.markdown
        for setting in ConfigurationSetting.all {
            let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| `\(setting.variable)` |") }
            #expect(rows.count == 1, "\(setting.variable)")
            #expect(!setting.meaning.isEmpty)
        }
        #expect(Set(ConfigurationSetting.all.map(\.variable)).count == ConfigurationSetting.all.count)
    }

    @Test("each documented default is the value Configuration uses when the setting is unset")
    func defaultsAreTheCodes() throws {
        let unset = try Configuration(environment: [:]).effectiveValues
        for setting in ConfigurationSetting.all {
            guard let value = setting.defaultValue else {
                #expect(unset[setting.variable] ?? nil == nil || setting.variable == "ISSUER_OPS_HOST",
                        "\(setting.variable) is documented as unset")
                continue
            }
            let explicit = try Configuration(environment: [setting.variable: value]).effectiveValues
            #expect(explicit == unset, "\(setting.variable)=\(value) is not the default")
        }
    }

    @Test("config check shows every setting of the table, and only those")
    func effectiveSettingsCoverTheTable() throws {
        let values = try Configuration(environment: [:]).effectiveValues
        #expect(Set(values.keys) == Set(ConfigurationSetting.all.map(\.variable)))
    }

    @Test("secrets are redacted from the effective settings")
    func secretsRedacted() throws {
        let secret = Data(repeating: 7, count: 32).base64EncodedString()
        let configuration = try Configuration(environment: [
            "ISSUER_SECRET": secret, "ISSUER_DATABASE_URL": "postgresql://issuer:hunter2@db.example.com/issuer",
        ])
        let shown = configuration.effectiveSettings
        let text = shown.map { "\($0.setting.variable)=\($0.value ?? "unset")" }.joined(separator: "\n")
        #expect(!text.contains("hunter2"))
        #expect(!text.contains(secret))
        #expect(shown.first { $0.setting.variable == "ISSUER_SECRET" }?.value == "<redacted>")
        #expect(shown.first { $0.setting.variable == "ISSUER_DATABASE_URL" }?.value == "<redacted>")
        #expect(try Configuration(environment: [:]).effectiveSettings.first { $0.setting.variable == "ISSUER_SECRET" }?.value == nil)
    }
}

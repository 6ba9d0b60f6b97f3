/// One setting (docs/reference.md, "Configuration"): its environment variable, the `serve` flag that overrides it, whether
/// its value is a secret that must never be echoed (not even in an error message), and what
/// `docs/configuration.md` says about it. `ConfigurationSetting.all` is the settings table: the
/// reference (`issuer config reference`), `issuer config check` and the flags all read it.
public struct ConfigurationSetting: Sendable, Hashable {
    /// The environment variable, e.g. `ISSUER_PORT`.
    public let variable: String
    /// Never echoed, not even in an error message (the database URL, the server secret).
    public let isSecret: Bool
    /// Where the reference lists it.
    public let section: ConfigurationSection
    /// The value used when the setting is unset, exactly as it would be written; nil when unset
    /// means something else (described by `unsetMeaning`).
    public let defaultValue: String?
    /// The reference's "default" column when there is no `defaultValue` (Markdown).
    public let unsetMeaning: String
    /// What it means and which values are valid (Markdown, one paragraph).
    public let meaning: String

    /// `ISSUER_DATABASE_POOL_SIZE` → `database-pool-size`.
    public var flag: String {
        String(variable.dropFirst("ISSUER_".count)).lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// docs/reference.md, "Configuration": a secret setting may instead be read from the file this variable names
    /// (`ISSUER_SECRET_FILE`), the container convention; `nil` for settings that are not secret.
    public var fileVariable: String? { isSecret ? variable + "_FILE" : nil }

    init(
        _ variable: String, _ section: ConfigurationSection, default defaultValue: String? = nil, unset: String = "unset",
        secret: Bool = false, _ meaning: String
    ) {
        self.variable = variable
        self.section = section
        self.defaultValue = defaultValue
        self.unsetMeaning = unset
        self.isSecret = secret
        self.meaning = meaning
    }

    /// The setting called `variable`, if there is one.
    public static func named(_ variable: String) -> ConfigurationSetting? {
        all.first { $0.variable == variable }
    }
}

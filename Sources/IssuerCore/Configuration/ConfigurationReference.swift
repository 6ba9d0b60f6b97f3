/// `docs/configuration.md`, generated from the settings table (`ConfigurationSetting.all`) so the
/// reference cannot drift from the code: `issuer config reference` prints it, and a test fails
/// when the file in the repository differs.
public enum ConfigurationReference {
    /// The whole document, Markdown.
    public static var markdown: String {
        var parts = [introduction]
        for section in ConfigurationSection.allCases {
            var text = "## \(section.title)\n\n| variable | default | meaning and rules |\n|---|---|---|\n"
            for setting in section.settings {
                text += "| `\(setting.variable)` | \(defaultColumn(setting)) | \(setting.meaning) |\n"
            }
            if !section.notes.isEmpty { text += "\n" + section.notes + "\n" }
            parts.append(text)
        }
        parts.append(secretFiles)
        return parts.joined(separator: "\n")
    }

    static func defaultColumn(_ setting: ConfigurationSetting) -> String {
        setting.defaultValue.map { "`\($0)`" } ?? setting.unsetMeaning
    }

    static let introduction = """
        # Configuration reference

        Every setting is an environment variable. `issuer serve` also takes each one as a flag: drop the
        `ISSUER_` prefix, lower-case it and turn `_` into `-` (`ISSUER_PORT` → `--port 9000`).
        `issuer serve --help` lists them all. A flag wins over the environment.

        An invalid value stops the process at start with exit status 1 and one line on stderr that names
        the setting and says what is wrong, e.g.

        ```
        issuer: invalid configuration: ISSUER_PORT (--port) must be a whole number from 1 to 65535 (got 'eighty')
        ```

        The server never starts half-configured. An empty value (`ISSUER_SECRET=`) counts as unset.
        `issuer config check` validates the configuration exactly as `issuer serve` would and prints the
        effective settings, secrets redacted; `issuer config reference` prints this page, which is
        generated from the settings table in the code.

        """

    static let secretFiles = """
        ## Secrets as files

        `ISSUER_SECRET` and `ISSUER_DATABASE_URL` can also be given as files, the container convention:
        `ISSUER_SECRET_FILE=/run/secrets/issuer-secret` reads the value from the file, stripping one
        trailing newline (so `openssl rand -base64 32 > file` works as is); likewise
        `ISSUER_DATABASE_URL_FILE`, and the flags `--secret-file`, `--database-url-file`. Setting both
        forms of one setting, or naming a file that cannot be read or is empty, stops the process naming
        the setting. Giving a secret as a plain flag (`--secret`, `--database-url`) works but prints a
        warning: every user of the host can read a process's command line.

        **Why production sets `ISSUER_SECRET`.** Left unset, the generated secret lives in the database
        so that every process agrees. Then anyone who can read the database (a leaked backup, a replica,
        an injection elsewhere) and holds one refresh token can derive that token's future successors and
        keep a session alive after it was rotated away from them. With `ISSUER_SECRET` set, the secret
        never enters the database and a database read alone is not enough.

        """
}

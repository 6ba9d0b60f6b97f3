import ArgumentParser

/// `issuer dev`: try sign-in locally, with no Apple, Google or Facebook account.
///
/// Development only. Nothing here changes what `issuer serve` trusts: a server accepts dev tokens
/// only when its operator points `ISSUER_APPLE_JWKS_URL` at `issuer dev apple` and adds
/// `dev.issuer.local` to `ISSUER_APPLE_CLIENT_IDS`, or names `issuer dev google`'s or
/// `issuer dev facebook`'s URLs and dev client ids in `ISSUER_PROVIDERS_FILE`.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Try sign-in locally without Apple, Google or Facebook: stand-ins for them, and tokens signed by their dev key.",
        discussion: """
            Development only. The stand-ins' key lives in ./.data/dev-apple (created on first use); \
            a server trusts it only when started with ISSUER_APPLE_JWKS_URL pointing at `issuer dev apple` \
            and ISSUER_APPLE_CLIENT_IDS=dev.issuer.local, or with the providers file `issuer dev google` or \
            `issuer dev facebook` prints.
            """,
        subcommands: [DevAppleCommand.self, DevGoogleCommand.self, DevFacebookCommand.self, DevTokenCommand.self, DevDPoPCommand.self]
    )
}

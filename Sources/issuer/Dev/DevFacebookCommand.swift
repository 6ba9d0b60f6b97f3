import ArgumentParser
import DevSigner

/// `issuer dev facebook`: a local stand-in for Facebook on 127.0.0.1 (development only). Bare,
/// or as `issuer dev facebook serve`, it serves Limited Login's keys, the Graph calls the issuer
/// makes for a classic access token (`debug_token`, `me`), the Login dialog and its token
/// endpoint, and the permissions removal of an account deletion (``DevFacebookServeCommand``);
/// `issuer dev facebook callback` plays Facebook calling the issuer's deauthorize and
/// data-deletion callbacks (``DevFacebookCallbackCommand``).
struct DevFacebookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facebook",
        abstract: "Serve a local stand-in for Facebook (keys, Graph API, Login dialog) on 127.0.0.1 (development only).",
        discussion: """
            The dev app is App ID \(DevSigner.facebookAppID) with app secret \(DevSigner.facebookAppSecret); \
            the banner prints the providers file that makes a local issuer trust the stand-in.
            """,
        subcommands: [DevFacebookServeCommand.self, DevFacebookCallbackCommand.self],
        defaultSubcommand: DevFacebookServeCommand.self)

    /// The Graph API version the stand-in serves under: the issuer's default `graph_version`, so
    /// the providers file the banner prints leaves it out.
    static let graphVersion = "v23.0"
}

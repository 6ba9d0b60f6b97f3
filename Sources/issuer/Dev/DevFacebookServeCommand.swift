import ArgumentParser
import DevSigner
import Foundation
import Hummingbird
import Logging

/// `issuer dev facebook [serve]`: the stand-in itself (``DevFacebookGraph`` answers), on
/// 127.0.0.1 only, with a banner naming the providers file that makes a local issuer trust it.
struct DevFacebookServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the Facebook stand-in (the default of `issuer dev facebook`).")

    @Option(help: "Port on 127.0.0.1 to listen on.")
    var port: Int = 9093

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be from 1 to 65535") }
    }

    func run() async throws {
        let signer = try DevSigner.openOrExit()
        let graph = DevFacebookGraph(signer: signer, now: { Date() }, report: { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        })
        var logger = Logger(label: "issuer.dev-facebook")
        logger.logLevel = .warning
        let banner = Self.banner(port: port, kid: signer.kid)
        // Loopback only, and no option to change it, as the other stand-ins.
        let app = Application(
            router: graph.router(),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "issuer-dev-facebook"),
            onServerRunning: { _ in FileHandle.standardOutput.write(Data(banner.utf8)) },
            logger: logger)
        try await app.runService()
    }

    /// The providers file entry that makes a local issuer trust this stand-in.
    static func providersFile(port: Int) -> String {
        let base = "http://127.0.0.1:\(port)"
        let version = DevFacebookCommand.graphVersion
        return """
            [{"id": "facebook", "kind": "facebook",
              "app_id": "\(DevSigner.facebookAppID)", "app_secret": "\(DevSigner.facebookAppSecret)",
              "jwks_uri": "\(base)\(DevFacebookGraph.jwksPath)", "graph_url": "\(base)",
              "authorization_endpoint": "\(base)/\(version)/dialog/oauth", "token_endpoint": "\(base)/\(version)/oauth/access_token"}]
            """
    }

    static func banner(port: Int, kid: String) -> String {
        """
        Facebook stand-in (development only) serving key \(kid) at http://127.0.0.1:\(port)
          Graph API \(DevFacebookCommand.graphVersion), App ID \(DevSigner.facebookAppID), app secret \(DevSigner.facebookAppSecret)

        Start the issuer in another terminal, trusting it:
          cat > .data/dev-providers.json <<'JSON'
        \(providersFile(port: port))
        JSON
          ISSUER_PROVIDERS_FILE=.data/dev-providers.json scripts/serve

        Then sign in as an iOS app with Limited Login would (an OpenID token and its nonce):
          .build/debug/issuer dev token --provider facebook --curl | sh
        or as an app with classic Facebook Login would (an access token, which the issuer checks here):
          .build/debug/issuer dev token --provider facebook --access-token --curl | sh
        or open http://127.0.0.1:8080/oauth2/authorize?…&provider=facebook for the hosted flow:
        this stand-in's dialog signs a dev user in with one click.

        Play Facebook calling the issuer's callbacks (signed with the dev app secret):
          .build/debug/issuer dev facebook callback deauthorize --user-id \(DevSigner.facebookUsers[0])
          .build/debug/issuer dev facebook callback data-deletion --user-id \(DevSigner.facebookUsers[0])

        Ctrl-C stops it.

        """
    }
}

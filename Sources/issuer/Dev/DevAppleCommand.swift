import ArgumentParser
import DevSigner
import Foundation
import Hummingbird
import IssuerCore
import Logging

/// `issuer dev apple`: serves the dev key's public half where Apple serves its keys
/// (`/auth/keys`) and a one-click stand-in for Apple's web sign-in page (`/auth/authorize`), on
/// 127.0.0.1 only, and prints the settings that make a local server trust it.
struct DevAppleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Serve a local stand-in for Apple's JWKS on 127.0.0.1 (development only).")

    @Option(help: "Port on 127.0.0.1 to listen on.")
    var port: Int = 9090

    /// Where the stand-in's sign-in page for the hosted flow is.
    static let authorizePath = "/auth/authorize"

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be from 1 to 65535") }
    }

    func run() async throws {
        let signer = try DevSigner.openOrExit()
        let jwks = ByteBuffer(data: signer.jwksJSON)
        let router = Router()
        router.get(RouterPath(DevSigner.jwksPath)) { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"],
                body: .init(byteBuffer: jwks))
        }
        // The hosted flow's Apple page (`ISSUER_APPLE_AUTHORIZE_URL` pointed here): one form per
        // dev user, each posting back what Apple's form_post would (state, an identity token for
        // the Services ID echoing the nonce it was sent, the name on first consent).
        router.get(RouterPath(Self.authorizePath)) { request, _ -> Response in
            let query = request.uri.queryParameters
            guard let redirectURI = query["redirect_uri"].map(String.init), let clientID = query["client_id"].map(String.init) else {
                return Response(status: .badRequest)
            }
            let forms = try ["000000.devuser.0001", "000000.devuser.0002"].map { subject in
                let token = try signer.identityToken(
                    subject: subject, email: "\(subject)@dev.issuer.local", nonceClaim: query["nonce"].map(String.init), audience: clientID)
                let fields = [
                    ("state", query["state"].map(String.init) ?? ""), ("id_token", token),
                    ("user", #"{"name":{"firstName":"Dev","lastName":"User"}}"#),
                ].map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(HTMLEscaping.escape($0.1))\">" }.joined()
                return "<form method=\"post\" action=\"\(HTMLEscaping.escape(redirectURI))\">\(fields)<button>Sign in as \(subject)</button></form>"
            }.joined()
            let page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Apple stand-in</title></head><body>"
                + "<h1>Apple stand-in (development only)</h1>\(forms)</body></html>"
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        var logger = Logger(label: "issuer.dev-apple")
        logger.logLevel = .warning
        let banner = Self.banner(port: port, kid: signer.kid)
        // Loopback only, and no option to change it: this key must never be reachable from elsewhere.
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "issuer-dev-apple"),
            onServerRunning: { _ in
                // Written unbuffered, so a script reading our output sees it at once.
                FileHandle.standardOutput.write(Data(banner.utf8))
            },
            logger: logger)
        try await app.runService()
    }

    static func banner(port: Int, kid: String) -> String {
        """
        Apple stand-in (development only) serving key \(kid)
          at http://127.0.0.1:\(port)\(DevSigner.jwksPath)
          key: \(DevSigner.defaultDirectory)/\(DevSigner.keyFileName)

        Start the issuer in another terminal, trusting it:
          ISSUER_APPLE_JWKS_URL=http://127.0.0.1:\(port)\(DevSigner.jwksPath) ISSUER_APPLE_CLIENT_IDS=\(DevSigner.audience) scripts/serve

        Then sign in with a dev identity token:
          .build/debug/issuer dev token --curl | sh

        For the hosted flow, add ISSUER_APPLE_SERVICES_ID=dev.issuer.web and
        ISSUER_APPLE_AUTHORIZE_URL=http://127.0.0.1:\(port)\(authorizePath): this stand-in's page then signs a
        dev user in with one click.

        Ctrl-C stops it.

        """
    }
}

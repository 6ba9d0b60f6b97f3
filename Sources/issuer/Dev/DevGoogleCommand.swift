import ArgumentParser
import DevSigner
import Foundation
import Hummingbird
import IssuerCore
import Logging
import Synchronization

/// `issuer dev google`: a local stand-in for Google on 127.0.0.1 (development only): its JWKS,
/// a one-click authorization page that signs a chosen dev user in, and a token endpoint that
/// redeems the codes it gave (PKCE S256 checked), answering Credential-Manager-shaped ID tokens
/// signed by the dev key. With it the Android path and the hosted flow's `provider=google` can be
/// tried with no Google account (docs/reference.md, "Google and other OpenID providers").
struct DevGoogleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "google",
        abstract: "Serve a local stand-in for Google (keys, sign-in page, token endpoint) on 127.0.0.1 (development only).")

    @Option(help: "Port on 127.0.0.1 to listen on.")
    var port: Int = 9091

    static let jwksPath = "/oauth2/v3/certs"
    static let authorizePath = "/o/oauth2/v2/auth"
    static let tokenPath = "/token"
    /// A token request is a short form; the stand-in reads no more than the issuer itself would
    /// (docs/reference.md, "Faults and bad input": 64 KiB).
    static let maximumTokenRequestSize = 64 * 1024

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be from 1 to 65535") }
    }

    /// What a code was issued for.
    struct Issued {
        var subject: String
        var clientID: String
        var redirectURI: String
        var nonce: String?
        var challenge: String?
    }

    func run() async throws {
        let signer = try DevSigner.openOrExit()
        let codes = Mutex<[String: Issued]>([:])
        let jwks = ByteBuffer(data: signer.jwksJSON)
        let router = Router()
        router.get(RouterPath(Self.jwksPath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"], body: .init(byteBuffer: jwks))
        }
        // The sign-in page: one button per dev user, nothing to type.
        router.get(RouterPath(Self.authorizePath)) { request, _ in
            let query = request.uri.queryParameters
            let hidden = ["client_id", "redirect_uri", "state", "nonce", "code_challenge"].compactMap { name in
                query[name].map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(HTMLEscaping.escape(String($0)))\">" }
            }.joined()
            let buttons = ["dev-google-user-1", "dev-google-user-2"].map {
                "<button name=\"sub\" value=\"\($0)\">Sign in as \($0)</button> "
            }.joined()
            let page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Google stand-in</title></head><body>"
                + "<h1>Google stand-in (development only)</h1><form method=\"get\" action=\"/approve\">\(hidden)\(buttons)</form></body></html>"
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        router.get("/approve") { request, _ -> Response in
            let query = request.uri.queryParameters
            guard let redirectURI = query["redirect_uri"].map(String.init), let clientID = query["client_id"].map(String.init),
                  let subject = query["sub"].map(String.init)
            else { return Response(status: .badRequest) }
            let code = "dev-google-code-" + UUID().uuidString
            codes.withLock {
                $0[code] = Issued(
                    subject: subject, clientID: clientID, redirectURI: redirectURI, nonce: query["nonce"].map(String.init),
                    challenge: query["code_challenge"].map(String.init))
            }
            let location = RedirectURI.adding([("code", code), ("state", query["state"].map(String.init))], to: redirectURI)
            return Response(status: .found, headers: [.location: location])
        }
        router.post(RouterPath(Self.tokenPath)) { request, context -> Response in
            let body = try await request.body.collect(upTo: Self.maximumTokenRequestSize)
            let form = try? BrowserParameters.parse(String(buffer: body))
            let verifier = form?["code_verifier"]
            guard let form, let code = form["code"], let issued = codes.withLock({ $0.removeValue(forKey: code) }),
                  form["client_id"] == issued.clientID, form["redirect_uri"] == issued.redirectURI, form["client_secret"] != nil,
                  issued.challenge == nil || verifier.map(PKCE.challenge(forVerifier:)) == issued.challenge
            else {
                return Response(status: .badRequest, headers: [.contentType: "application/json"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"error":"invalid_grant"}"#)))
            }
            let idToken = try signer.googleIDToken(
                subject: issued.subject, email: "\(issued.subject)@dev.issuer.local", nonceClaim: issued.nonce,
                audience: issued.clientID, authorizedParty: issued.clientID)
            let answer = try JSONSerialization.data(withJSONObject: [
                "access_token": "dev-google-access", "token_type": "Bearer", "expires_in": 3599, "id_token": idToken,
            ])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: answer)))
        }
        var logger = Logger(label: "issuer.dev-google")
        logger.logLevel = .warning
        let banner = Self.banner(port: port, kid: signer.kid)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "issuer-dev-google"),
            onServerRunning: { _ in FileHandle.standardOutput.write(Data(banner.utf8)) },
            logger: logger)
        try await app.runService()
    }

    /// The providers file entry that makes a local server trust this stand-in.
    static func providersFile(port: Int) -> String {
        let base = "http://127.0.0.1:\(port)"
        return """
            [{"id": "google", "kind": "google",
              "native_audiences": ["\(DevSigner.googleWebClientID)"], "authorized_parties": ["\(DevSigner.googleAndroidClientID)"],
              "client_id": "\(DevSigner.googleWebClientID)", "client_secret": "dev-secret",
              "jwks_uri": "\(base)\(jwksPath)", "authorization_endpoint": "\(base)\(authorizePath)", "token_endpoint": "\(base)\(tokenPath)"}]
            """
    }

    static func banner(port: Int, kid: String) -> String {
        """
        Google stand-in (development only) serving key \(kid) at http://127.0.0.1:\(port)

        Start the issuer in another terminal, trusting it:
          cat > .data/dev-providers.json <<'JSON'
        \(providersFile(port: port))
        JSON
          ISSUER_PROVIDERS_FILE=.data/dev-providers.json scripts/serve

        Then sign in as an Android app would:
          .build/debug/issuer dev token --provider google --nonce my-raw-nonce --curl | sh
        or open http://127.0.0.1:8080/oauth2/authorize?…&provider=google for the hosted flow.

        Ctrl-C stops it.

        """
    }

}

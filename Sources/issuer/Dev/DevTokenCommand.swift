import ArgumentParser
import DevSigner
import Foundation

/// `issuer dev token`: prints a fresh Apple-shaped identity token (with `--provider google` a
/// Credential-Manager-shaped ID token, with `--provider facebook` a Limited Login token or, with
/// `--access-token`, a dev classic access token) signed by the dev key, or with `--curl` the
/// command that exchanges it at `POST /auth/{provider}/exchange`.
struct DevTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print an Apple-, Google- or Facebook-shaped token signed by the dev key (development only).")

    @Option(help: ArgumentHelp(
        "Whose token: apple (an iOS identity token), google (a Credential Manager ID token) or facebook (a Limited Login token).",
        discussion: "With facebook, --access-token prints a classic Facebook Login access token instead."))
    var provider = DevProvider.apple

    @Option(help: "The user id (`sub`); default a dev user of the provider.")
    var sub: String?

    @Option(help: "The `email` claim; empty for none.")
    var email = "dev@issuer.local"

    @Option(help: ArgumentHelp(
        "A raw nonce; the token carries its SHA-256 in hex, as Apple's do, and --curl sends it.",
        discussion: "A facebook token always carries one: without --nonce one is made, sent by --curl, else printed on stderr."))
    var nonce: String?

    @Option(help: ArgumentHelp(
        "A value the token's `nonce` claim carries verbatim, as Apple echoes the one the hosted flow sent it.",
        discussion: "For playing Apple in the hosted flow: pass the `nonce` of the Apple URL /oauth2/authorize redirected to."))
    var nonceClaim: String?

    @Option(help: "The `aud` claim: an entry of ISSUER_APPLE_CLIENT_IDS, of the google provider's native_audiences, or the facebook app_id.")
    var audience: String?

    @Option(help: "Seconds until the token expires (Apple's last 10 minutes).")
    var lifetime = 600

    @Flag(help: "With --provider facebook: print a dev access token of classic Facebook Login (which `issuer dev facebook` vouches for) instead of a Limited Login token.")
    var accessToken = false

    @Flag(help: "Print a curl command that exchanges the token instead of the bare token.")
    var curl = false

    @Option(help: "The issuer to send --curl's request to (default: ISSUER_URL, else http://127.0.0.1:8080).")
    var issuerURL: String?

    @Flag(help: "With --curl: send a DPoP proof of the dev device key (`issuer dev dpop`), binding the session to it.")
    var dpop = false

    func validate() throws {
        guard lifetime > 0 else { throw ValidationError("--lifetime must be positive") }
        // Ten years: a token's `exp` and a dev access token's expiry stay whole seconds that fit.
        guard lifetime <= 10 * 365 * 86_400 else { throw ValidationError("--lifetime must be at most ten years (315360000 seconds)") }
        // Both would fill the one claim; which wins would be a guess.
        guard nonce == nil || nonceClaim == nil else { throw ValidationError("--nonce and --nonce-claim cannot be used together") }
        guard !dpop || curl else { throw ValidationError("--dpop needs --curl") }
        guard !accessToken || provider == .facebook else { throw ValidationError("--access-token needs --provider facebook") }
        // Facebook's hosted flow hands the issuer an access token, never an ID token, so nothing echoes a nonce verbatim.
        guard provider != .facebook || nonceClaim == nil else { throw ValidationError("--nonce-claim is for apple and google") }
        // An access token carries no claims but its user's and its expiry.
        guard !accessToken || (nonce == nil && audience == nil) else {
            throw ValidationError("--access-token carries no nonce or audience: leave out --nonce and --audience")
        }
    }

    func run() throws {
        if accessToken {
            let token = DevSigner.facebookAccessToken(
                subject: sub ?? DevSigner.facebookUsers[0], expiresAt: Date().addingTimeInterval(TimeInterval(lifetime)))
            print(curl ? try curlCommand(body: ["access_token": token]) : token)
            return
        }
        let signer = try DevSigner.openOrExit()
        let email = email.isEmpty ? nil : email
        var nonce = nonce
        let token: String
        switch provider {
        case .google:
            token = try signer.googleIDToken(
                subject: sub ?? "dev-google-user-1", email: email, nonce: nonce, nonceClaim: nonceClaim,
                audience: audience ?? DevSigner.googleWebClientID, lifetime: TimeInterval(lifetime))
        case .facebook:
            // Limited Login's tokens always carry a nonce, and the exchange requires its raw value.
            if nonce == nil {
                let made = DevSigner.randomNonce()
                if !curl { FileHandle.standardError.write(Data("nonce: \(made)\n".utf8)) }
                nonce = made
            }
            token = try signer.facebookIDToken(
                subject: sub ?? DevSigner.facebookUsers[0], email: email, nonce: nonce ?? "",
                audience: audience ?? DevSigner.facebookAppID, lifetime: TimeInterval(lifetime))
        case .apple:
            token = try signer.identityToken(
                subject: sub ?? "000000.devuser.0001", email: email, nonce: nonce, nonceClaim: nonceClaim,
                audience: audience ?? DevSigner.audience, lifetime: TimeInterval(lifetime))
        }
        guard curl else {
            print(token)
            return
        }
        var body = ["id_token": token]
        if let nonce { body["nonce"] = nonce }
        print(try curlCommand(body: body))
    }

    /// `curl … -d '{"id_token": …}'` (or `{"access_token": …}`), quoted for a POSIX shell.
    func curlCommand(body: [String: String]) throws -> String {
        let base = issuerURL ?? ProcessInfo.processInfo.environment["ISSUER_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "http://127.0.0.1:8080"
        let endpoint = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/auth/\(provider.rawValue)/exchange"
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]), as: UTF8.self)
        let proof = dpop ? " -H " + Self.shellQuoted("DPoP: " + (try DevDeviceKey.openOrExit().proof(method: "POST", url: endpoint))) : ""
        return "curl -sS -X POST \(Self.shellQuoted(endpoint)) -H 'Content-Type: application/json'\(proof) -d \(Self.shellQuoted(json))"
    }

    /// Single-quoted for a POSIX shell: nothing inside is interpreted, and `'` becomes `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

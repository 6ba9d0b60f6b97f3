import ArgumentParser
import DevSigner
import Foundation

/// `issuer dev token`: prints a fresh Apple-shaped identity token (or with `--provider google` a
/// Credential-Manager-shaped ID token) signed by the dev key, or with `--curl` the command that
/// exchanges it at `POST /auth/{provider}/exchange`.
struct DevTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print an Apple- or Google-shaped ID token signed by the dev key (development only).")

    @Option(help: "Whose token: apple (an iOS identity token) or google (a Credential Manager ID token).")
    var provider = "apple"

    @Option(help: "The user id (`sub`); default a dev user of the provider.")
    var sub: String?

    @Option(help: "The `email` claim; empty for none.")
    var email = "dev@issuer.local"

    @Option(help: "A raw nonce; the token carries its SHA-256 in hex, as Apple's do, and --curl sends it.")
    var nonce: String?

    @Option(help: ArgumentHelp(
        "A value the token's `nonce` claim carries verbatim, as Apple echoes the one the hosted flow sent it.",
        discussion: "For playing Apple in the hosted flow: pass the `nonce` of the Apple URL /oauth2/authorize redirected to."))
    var nonceClaim: String?

    @Option(help: "The `aud` claim: an entry of ISSUER_APPLE_CLIENT_IDS, or of the google provider's native_audiences.")
    var audience: String?

    @Option(help: "Seconds until the token expires (Apple's last 10 minutes).")
    var lifetime = 600

    @Flag(help: "Print a curl command that exchanges the token instead of the bare token.")
    var curl = false

    @Option(help: "The issuer to send --curl's request to (default: ISSUER_URL, else http://127.0.0.1:8080).")
    var issuerURL: String?

    @Flag(help: "With --curl: send a DPoP proof of the dev device key (`issuer dev dpop`), binding the session to it.")
    var dpop = false

    func validate() throws {
        guard lifetime > 0 else { throw ValidationError("--lifetime must be positive") }
        // Both would fill the one claim; which wins would be a guess.
        guard nonce == nil || nonceClaim == nil else { throw ValidationError("--nonce and --nonce-claim cannot be used together") }
        guard ["apple", "google"].contains(provider) else { throw ValidationError("--provider must be apple or google") }
        guard !dpop || curl else { throw ValidationError("--dpop needs --curl") }
    }

    func run() throws {
        let signer = try DevSigner.openOrExit()
        let email = email.isEmpty ? nil : email
        let token = provider == "google"
            ? try signer.googleIDToken(
                subject: sub ?? "dev-google-user-1", email: email, nonce: nonce, nonceClaim: nonceClaim,
                audience: audience ?? DevSigner.googleWebClientID, lifetime: TimeInterval(lifetime))
            : try signer.identityToken(
                subject: sub ?? "000000.devuser.0001", email: email, nonce: nonce, nonceClaim: nonceClaim,
                audience: audience ?? DevSigner.audience, lifetime: TimeInterval(lifetime))
        guard curl else {
            print(token)
            return
        }
        print(try curlCommand(token: token))
    }

    /// `curl … -d '{"id_token": …}'`, quoted for a POSIX shell.
    func curlCommand(token: String) throws -> String {
        let base = issuerURL ?? ProcessInfo.processInfo.environment["ISSUER_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "http://127.0.0.1:8080"
        let endpoint = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/auth/\(provider)/exchange"
        var body = ["id_token": token]
        if let nonce { body["nonce"] = nonce }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]), as: UTF8.self)
        let proof = dpop ? " -H " + Self.shellQuoted("DPoP: " + (try DevDeviceKey.openOrExit().proof(method: "POST", url: endpoint))) : ""
        return "curl -sS -X POST \(Self.shellQuoted(endpoint)) -H 'Content-Type: application/json'\(proof) -d \(Self.shellQuoted(json))"
    }

    /// Single-quoted for a POSIX shell: nothing inside is interpreted, and `'` becomes `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

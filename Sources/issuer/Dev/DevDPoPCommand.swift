import ArgumentParser
import DevSigner
import Foundation

/// `issuer dev dpop`: prints a DPoP proof (RFC 9449) signed by the dev device key, so that a
/// bound session can be driven with curl: the sign-in (`issuer dev token --curl --dpop`), each
/// refresh, and `/userinfo` with `Authorization: DPoP`. docs/reference.md, "DPoP".
struct DevDPoPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dpop",
        abstract: "Print a DPoP proof signed by the dev device key (development only).",
        discussion: """
            The key (P-256, as a Secure Enclave's) lives in ./.data/dev-apple/\(DevDeviceKey.keyFileName), made on \
            first use; --thumbprint prints its RFC 7638 thumbprint, the cnf.jkt of the sessions it binds. \
            Each proof has a fresh jti and iat, so make one per request.
            """)

    @Option(help: "The request's URL as the issuer serves it, without query (e.g. http://127.0.0.1:8080/oauth2/token).")
    var url: String?

    @Option(help: "The request's method.")
    var method = "POST"

    @Option(help: "At /userinfo and /account: the DPoP access token the request carries (the proof's ath).")
    var accessToken: String?

    @Option(help: "The server's nonce (the DPoP-Nonce of its last answer), where ISSUER_DPOP_NONCE=on.")
    var nonce: String?

    @Flag(help: "Print the key's thumbprint instead of a proof.")
    var thumbprint = false

    func validate() throws {
        guard thumbprint || url != nil else { throw ValidationError("--url is required (or --thumbprint)") }
    }

    func run() throws {
        let key = try DevDeviceKey.openOrExit()
        if thumbprint {
            print(key.thumbprint)
            return
        }
        print(try key.proof(method: method.uppercased(), url: url ?? "", accessToken: accessToken, nonce: nonce))
    }
}

extension DevDeviceKey {
    /// The device key under the dev signer's directory, or a one-line failure.
    static func openOrExit() throws -> DevDeviceKey {
        do {
            return try DevDeviceKey(directory: URL(fileURLWithPath: DevSigner.defaultDirectory))
        } catch {
            throw CommandFailure.failed("\(error)")
        }
    }
}

import ArgumentParser
import DevApple
import Foundation
import Hummingbird
import Logging

/// `issuer dev apple`: serves the dev key's public half where Apple serves its keys
/// (`/auth/keys`), on 127.0.0.1 only, and prints the settings that make a local server trust it.
struct DevAppleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Serve a local stand-in for Apple's JWKS on 127.0.0.1 (development only).")

    @Option(help: "Port on 127.0.0.1 to listen on.")
    var port: Int = 9090

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be from 1 to 65535") }
    }

    func run() async throws {
        let signer = try DevAppleSigner.openOrExit()
        let jwks = ByteBuffer(data: signer.jwksJSON)
        let router = Router()
        router.get(RouterPath(DevAppleSigner.jwksPath)) { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"],
                body: .init(byteBuffer: jwks))
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
          at http://127.0.0.1:\(port)\(DevAppleSigner.jwksPath)
          key: \(DevAppleSigner.defaultDirectory)/\(DevAppleSigner.keyFileName)

        Start the issuer in another terminal, trusting it:
          ISSUER_APPLE_JWKS_URL=http://127.0.0.1:\(port)\(DevAppleSigner.jwksPath) ISSUER_APPLE_CLIENT_IDS=\(DevAppleSigner.audience) scripts/serve

        Then sign in with a dev identity token:
          .build/debug/issuer dev token --curl | sh

        Ctrl-C stops it.

        """
    }
}

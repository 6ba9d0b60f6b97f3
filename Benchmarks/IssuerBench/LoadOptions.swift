import ArgumentParser
import Foundation

/// What every load benchmark against a running issuer takes.
struct LoadOptions: ParsableArguments {
    @Option(help: "The issuer's base URL (its ISSUER_URL).")
    var url = "http://127.0.0.1:8080"

    @Option(help: "Connections, each with one request in flight at a time (closed loop: the next as soon as the previous answered).")
    var connections = 64

    @Option(help: "Seconds measured.")
    var seconds: Double = 20

    @Option(help: "Seconds of unmeasured load first (connections, JWKS cache, JIT-free but cache-warm).")
    var warmup: Double = 2

    @Option(help: "Directory of the dev Apple key (`issuer dev apple` of the server under test).")
    var devAppleDir = ".data/dev-apple"

    @Option(help: "Apple audience of the minted identity tokens: an entry of the server's ISSUER_APPLE_CLIENT_IDS.")
    var audience = "dev.issuer.local"

    @Option(help: """
        Open loop: offer this many requests per second on a fixed schedule, whatever the answers' \
        latency, and measure each from its scheduled start (corrected for coordinated omission). \
        Without it, closed loop: each connection sends its next request when the previous answered.
        """)
    var rate: Double?

    @Option(help: "The public client that signs in (the exchange's client_id) and refreshes.")
    var clientId = "clanboards-mobile"

    @Option(help: "Distinct Apple users to sign in as, minted before the clock starts so the client signs nothing while measuring.")
    var users = 1024

    func validate() throws {
        guard connections > 0, seconds > 0, warmup >= 0, users > 0 else {
            throw ValidationError("--connections, --seconds and --users must be positive, --warmup not negative")
        }
        if let rate, !(rate > 0 && rate <= 1_000_000) {
            throw ValidationError("--rate must lie between 0 and 1,000,000 requests per second")
        }
        guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https", parsed.host != nil else {
            throw ValidationError("--url must be an http(s) URL")
        }
    }

    /// `url` + `path`, with no doubled slash.
    func endpoint(_ path: String) -> String {
        (url.hasSuffix("/") ? String(url.dropLast()) : url) + path
    }
}

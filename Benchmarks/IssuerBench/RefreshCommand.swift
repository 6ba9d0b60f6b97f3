import ArgumentParser
import AsyncHTTPClient
import DevSigner
import Foundation
import NIOCore
import NIOFoundationCompat

/// `issuer-bench refresh`: refresh-token rotations per second (`POST /oauth2/token`,
/// `grant_type=refresh_token`, docs/reference.md, "Token endpoint" and "Refresh tokens and sessions").
///
/// Each connection follows its own rotation chain: it signs in once (untimed), then presents
/// its current refresh token and must use the successor from each answer in the next request,
/// as an app does. A failed rotation counts as an error and the connection starts a new chain.
/// With `--dpop` every chain is bound to the dev device key (docs/reference.md, "DPoP"): the
/// sign-in and each refresh carry a fresh ES256 proof, signed by the client as an app would.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Refresh rotations/s, each connection following its own refresh-token chain.")

    @OptionGroup var load: LoadOptions

    @Flag(help: "Bind every chain to the dev device key (`issuer dev dpop`): a fresh DPoP proof on the sign-in and each refresh.")
    var dpop = false

    struct Worker: Sendable {
        var index: Int
        var signIns = 0
        var refreshToken: String?
    }

    /// The part of a token response this mode reads.
    struct TokenAnswer: Decodable {
        var refresh_token: String?
    }

    func run() async throws {
        let pool = try AppleTokenPool(load)
        let exchangeURL = load.endpoint("/auth/apple/exchange")
        let tokenURL = load.endpoint("/oauth2/token")
        let connections = load.connections
        let clientId = load.clientId
        let device = dpop ? try DevDeviceKey(directory: URL(fileURLWithPath: load.devAppleDir)) : nil
        let generator = LoadGenerator(connections: connections)
        let step: @Sendable (Worker, LoadGenerator) async -> (Worker, LoadGenerator.Outcome?) = { worker, generator in
            var worker = worker
            guard let current = worker.refreshToken else {
                // Start a chain: one exchange, not timed; only its failure is reported.
                let body = pool.body(worker: worker.index, request: worker.signIns, workers: connections)
                worker.signIns += 1
                var signIn = ExchangeCommand.request(url: exchangeURL, json: body)
                if let device, let proof = try? device.proof(method: "POST", url: exchangeURL) { signIn.headers.add(name: "DPoP", value: proof) }
                let outcome = await generator.send(signIn)
                worker.refreshToken = Self.refreshToken(in: outcome)
                return (worker, worker.refreshToken == nil ? outcome : nil)
            }
            var request = HTTPClientRequest(url: tokenURL)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            if let device, let proof = try? device.proof(method: "POST", url: tokenURL) { request.headers.add(name: "DPoP", value: proof) }
            let form = "grant_type=refresh_token&refresh_token=\(Self.formEncoded(current))&client_id=\(Self.formEncoded(clientId))"
            request.body = .bytes(ByteBuffer(string: form))
            var outcome = await generator.send(request)
            worker.refreshToken = Self.refreshToken(in: outcome)
            if outcome.status == 200, worker.refreshToken == nil {
                outcome.status = nil
                outcome.error = "200 without a refresh_token"
            }
            return (worker, outcome)
        }
        var workers = (0..<connections).map { Worker(index: $0) }
        if load.warmup > 0 { workers = await generator.run(workers: workers, for: .seconds(load.warmup), step: step).workers }
        let report = await generator.run(workers: workers, for: .seconds(load.seconds), rate: load.rate, step: step).report
        try await generator.shutdown()
        report.printSummary(mode: dpop ? "refresh-dpop" : "refresh", connections: connections, offered: load.rate)
    }

    /// The successor refresh token of a 200 answer, else nil.
    static func refreshToken(in outcome: LoadGenerator.Outcome) -> String? {
        guard outcome.status == 200, let body = outcome.body else { return nil }
        return try? JSONDecoder().decode(TokenAnswer.self, from: Data(buffer: body)).refresh_token
    }

    /// `application/x-www-form-urlencoded` value: everything but unreserved characters escaped.
    static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import Synchronization
import TestSupport

/// Plays Apple's token and revoke endpoints (`/auth/token`, `/auth/revoke`) over real HTTP on
/// loopback, checking every client secret as Apple would, with jwt-kit (an implementation
/// independent of ours) against the public half of a `.p8` key written for the test.
final class FakeAppleServer: Sendable {
    static let teamID = "TEAM123456"
    static let keyID = "KEY7654321"

    /// How the fake answers.
    enum Mode: Sendable, Equatable {
        case up
        /// `503` at once, as an outage behind Apple's load balancer would.
        case unavailable
        /// Accepts the request and never answers.
        case hanging
    }

    struct State {
        var mode = Mode.up
        /// Issued codes and the refresh token each redeems to.
        var codes: [String: String] = [:]
        /// The Apple account (`sub`) each issued code belongs to.
        var codeSubjects: [String: String] = [:]
        /// Signs the `id_token` of a token answer for (client_id, sub), with the keys of the
        /// Apple JWKS the issuer trusts; nil until the test rig sets it.
        var idTokens: (@Sendable (_ clientID: String, _ subject: String) throws -> String)?
        /// Refresh tokens Apple still considers valid.
        var liveTokens: Set<String> = []
        /// Every token a revoke request named, in order (accepted or not).
        var revokeRequests: [String] = []
        /// Tokens revoked successfully, in order.
        var revoked: [String] = []
        var tokenRequests = 0
        /// Revocations of one token in progress at once, and the most ever seen.
        var inFlight: [String: Int] = [:]
        var maxConcurrentPerToken = 0
        var revokeDelay: Duration = .zero
        /// Client secrets that failed the check.
        var refusedSecrets = 0
        var lastSecret: String?
        /// Team transfer: each old `sub`'s transfer identifier, new `sub` and new relay address.
        var migration: [String: (transferSub: String, newSub: String, email: String)] = [:]
        /// `usermigrationinfo` answers 429 this many times before answering.
        var migrationThrottles = 0
        var migrationTokens: Set<String> = []
        var migrationRequests = 0
    }

    let state = Mutex(State())
    let keyFile: URL
    private let privateKeyPEM: String

    /// Writes a fresh `.p8` key into a directory of its own; `with` and `withKeyFile` remove it.
    private init() throws {
        let key = ES256PrivateKey()
        privateKeyPEM = key.pemRepresentation
        keyFile = try TestDirectories.created("apple").appendingPathComponent("AuthKey_\(Self.keyID).p8")
        try privateKeyPEM.write(to: keyFile, atomically: true, encoding: .utf8)
    }

    /// Runs `body` with a fake serving on loopback (`body` gets it and its port); afterwards
    /// stops serving and removes the key file, whichever way `body` ended.
    static func with(_ body: @escaping @Sendable (FakeAppleServer, Int) async throws -> Void) async throws {
        let apple = try FakeAppleServer()
        defer { TestDirectories.remove(apple.keyFile.deletingLastPathComponent()) }
        try await apple.run { port in try await body(apple, port) }
    }

    /// Runs `body` with the fake's key file only (nothing served), removed afterwards.
    static func withKeyFile<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (FakeAppleServer) async throws -> Result
    ) async throws -> Result {
        let apple = try FakeAppleServer()
        defer { TestDirectories.remove(apple.keyFile.deletingLastPathComponent()) }
        return try await body(apple)
    }

    /// The synchronous form of ``withKeyFile(isolation:_:)``.
    static func withKeyFile<Result>(_ body: (FakeAppleServer) throws -> Result) throws -> Result {
        let apple = try FakeAppleServer()
        defer { TestDirectories.remove(apple.keyFile.deletingLastPathComponent()) }
        return try body(apple)
    }

    var mode: Mode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    /// A fresh one-time code of the Apple account `subject` that redeems to a fresh refresh
    /// token (and an `id_token` naming `subject`); answers both.
    func issueCode(subject: String) -> (code: String, refreshToken: String) {
        let code = "c" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let token = "r" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() + ".0.abcd.EfGhIjKlMnOp"
        state.withLock {
            $0.codes[code] = token
            $0.codeSubjects[code] = subject
        }
        return (code, token)
    }

    /// The settings that point the issuer at this fake with its key.
    func environment(port: Int) -> [String: String] {
        [
            "ISSUER_APPLE_TEAM_ID": Self.teamID, "ISSUER_APPLE_KEY_ID": Self.keyID,
            "ISSUER_APPLE_PRIVATE_KEY_FILE": keyFile.path,
            "ISSUER_APPLE_TOKEN_URL": "http://127.0.0.1:\(port)/auth/token",
            "ISSUER_APPLE_REVOKE_URL": "http://127.0.0.1:\(port)/auth/revoke",
            "ISSUER_APPLE_MIGRATION_URL": "http://127.0.0.1:\(port)/auth/usermigrationinfo",
        ]
    }

    /// Serves until `body` returns; `body` gets the port.
    private func run(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let router = Router()
        router.post("/auth/token") { request, _ in try await self.token(request) }
        router.post("/auth/revoke") { request, _ in try await self.revoke(request) }
        router.post("/auth/usermigrationinfo") { request, _ in try await self.migrationInfo(request) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in try await body(client.port!) }
    }

    /// The claims Apple requires of a client secret (Apple, "Creating a client secret").
    struct ClientSecretClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        var aud: AudienceClaim
        var sub: SubjectClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
            guard iss.value == FakeAppleServer.teamID, aud.value == ["https://appleid.apple.com"],
                  exp.value.timeIntervalSince(iat.value) <= 15_777_000
            else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "not Apple's claims") }
        }
    }

    private func secretIsValid(_ form: [String: String]) async -> Bool {
        guard let secret = form["client_secret"], let clientID = form["client_id"] else { return false }
        state.withLock { $0.lastSecret = secret }
        let keys = JWTKeyCollection()
        do {
            await keys.add(ecdsa: try ES256PrivateKey(pem: privateKeyPEM).publicKey, kid: JWKIdentifier(string: Self.keyID))
            let claims = try await keys.verify(secret, as: ClientSecretClaims.self)
            return claims.sub.value == clientID
        } catch {
            return false
        }
    }

    private func token(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        let mode = state.withLock { state in
            state.tokenRequests += 1
            return state.mode
        }
        if let outage = try await outage(mode) { return outage }
        guard await secretIsValid(form) else {
            state.withLock { $0.refusedSecrets += 1 }
            return Self.json(.badRequest, ["error": "invalid_client"])
        }
        if form["grant_type"] == "client_credentials" {
            guard form["scope"] == "user.migration" else { return Self.json(.badRequest, ["error": "invalid_scope"]) }
            let token = "m" + UUID().uuidString
            state.withLock { _ = $0.migrationTokens.insert(token) }
            return Self.json(.ok, ["access_token": token, "token_type": "Bearer", "expires_in": "3600"])
        }
        guard form["grant_type"] == "authorization_code", let code = form["code"], let clientID = form["client_id"],
              let (token, subject, idTokens) = state.withLock({ state in
                  state.codes.removeValue(forKey: code).map { ($0, state.codeSubjects.removeValue(forKey: code), state.idTokens) }
              })
        else { return Self.json(.badRequest, ["error": "invalid_grant"]) }
        state.withLock { _ = $0.liveTokens.insert(token) }
        var answer = ["access_token": "a.apple.access", "token_type": "Bearer", "expires_in": "3600", "refresh_token": token]
        if let subject, let idTokens { answer["id_token"] = try idTokens(clientID, subject) }
        return Self.json(.ok, answer)
    }

    private func revoke(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        let token = form["token"] ?? ""
        let (mode, delay) = state.withLock { state in
            state.revokeRequests.append(token)
            state.inFlight[token, default: 0] += 1
            state.maxConcurrentPerToken = max(state.maxConcurrentPerToken, state.inFlight[token]!)
            return (state.mode, state.revokeDelay)
        }
        defer { state.withLock { $0.inFlight[token, default: 1] -= 1 } }
        if let outage = try await outage(mode) { return outage }
        if delay > .zero { try await Task.sleep(for: delay) }
        guard await secretIsValid(form), form["token_type_hint"] == "refresh_token" else {
            state.withLock { $0.refusedSecrets += 1 }
            return Self.json(.badRequest, ["error": "invalid_client"])
        }
        // Apple answers `invalid_grant` for a token that is no longer valid.
        let accepted = state.withLock { state in
            guard state.liveTokens.remove(token) != nil else { return false }
            state.revoked.append(token)
            return true
        }
        guard accepted else { return Self.json(.badRequest, ["error": "invalid_grant"]) }
        return Response(status: .ok)
    }

    /// Apple's `usermigrationinfo`: the sending team's `sub` and `target` give a `transfer_sub`;
    /// the receiving team's `transfer_sub` gives the new `sub` and e-mail.
    private func migrationInfo(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        let bearer = request.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) } ?? ""
        let (throttled, known) = state.withLock { state -> (Bool, Bool) in
            state.migrationRequests += 1
            if state.migrationThrottles > 0 {
                state.migrationThrottles -= 1
                return (true, true)
            }
            return (false, state.migrationTokens.contains(bearer))
        }
        if throttled { return Self.json(.tooManyRequests, ["error": "rate_limited"]) }
        guard known, await secretIsValid(form) else { return Self.json(.badRequest, ["error": "invalid_client"]) }
        let mapping = state.withLock { $0.migration }
        if let sub = form["sub"], form["target"] != nil, let entry = mapping[sub] {
            return Self.json(.ok, ["transfer_sub": entry.transferSub])
        }
        if let transferSub = form["transfer_sub"], let entry = mapping.values.first(where: { $0.transferSub == transferSub }) {
            return Self.json(.ok, ["sub": entry.newSub, "email": entry.email])
        }
        return Self.json(.badRequest, ["error": "invalid_request"])
    }

    /// The answer of an Apple that is not `.up`, or nil when it is.
    private func outage(_ mode: Mode) async throws -> Response? {
        switch mode {
        case .up: return nil
        case .unavailable: return Self.json(.serviceUnavailable, ["error": "server_error"])
        case .hanging:
            // Holds the request until the test changes the mode (at most a minute), so that the
            // fake's own shutdown never waits on it.
            try await hang()
            return Self.json(.serviceUnavailable, ["error": "server_error"])
        }
    }

    private func hang() async throws {
        let end = ContinuousClock.now + .seconds(60)
        while mode == .hanging, ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Tokens revoked successfully so far.
    var revokedTokens: [String] { state.withLock { $0.revoked } }

    private static func form(_ request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 64 * 1024)
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    private static func json(_ status: HTTPResponse.Status, _ object: [String: String]) -> Response {
        let data = try! JSONSerialization.data(withJSONObject: object)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

import Foundation
import Testing
import TestSupport

/// "Try it without Apple": `issuer dev apple` plays Apple's JWKS, `issuer dev token` mints an
/// identity token, and an `issuer serve` told to trust the stand-in exchanges it, as the README
/// shows a newcomer.
@Suite("issuer dev, end to end")
struct DevCommandTests {
    @Test("a dev token exchanges for tokens at a server pointed at the dev Apple")
    func exchangeWithoutApple() async throws {
        let database = try await TestCluster.freshDatabase()
        let directory = try TestDirectories.created("dev")
        defer { TestDirectories.remove(directory) }
        let ports = TestPorts.distinct(2)
        let (applePort, serverPort) = (ports[0], ports[1])

        let apple = try IssuerCommand.start(["dev", "apple", "--port", "\(applePort)"], in: directory)
        defer { apple.kill() }
        #expect(await TestHTTP.waitUntilOK(port: applePort, path: "/auth/keys"), "dev apple never answered: \(apple.output)")
        let keyFile = directory.appendingPathComponent(".data/dev-apple/signing-key.pem").path
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let keyDirectory = directory.appendingPathComponent(".data/dev-apple").path
        #expect(try FileManager.default.attributesOfItem(atPath: keyDirectory)[.posixPermissions] as? Int == 0o700)
        let settings = "ISSUER_APPLE_JWKS_URL=http://127.0.0.1:\(applePort)/auth/keys ISSUER_APPLE_CLIENT_IDS=dev.issuer.local"
        #expect(apple.output.contains(settings), "prints the settings to serve with: \(apple.output)")

        let keys = try await IssuerCommand.run(["keys", "init", "--keys-dir", "keys"], in: directory)
        #expect(keys.code == 0, "\(keys.output)")
        let server = try IssuerCommand.start(["serve", "--port", "\(serverPort)"], in: directory, environment: [
            "ISSUER_DATABASE_URL": database, "ISSUER_KEYS_DIR": "keys",
            "ISSUER_APPLE_JWKS_URL": "http://127.0.0.1:\(applePort)/auth/keys",
            "ISSUER_APPLE_CLIENT_IDS": "dev.issuer.local",
        ])
        defer { server.kill() }
        #expect(await TestHTTP.waitUntilOK(port: serverPort, path: "/readyz"), "serve never became ready: \(server.output)")

        let token = try await IssuerCommand.run(["dev", "token", "--nonce", "raw-nonce-1"], in: directory)
        #expect(token.code == 0, "\(token.output)")
        let idToken = token.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(idToken.split(separator: ".").count == 3, "one JWT and nothing else: \(token.output)")

        let body = try JSONSerialization.data(withJSONObject: ["id_token": idToken, "nonce": "raw-nonce-1"])
        let answer = try #require(await TestHTTP.post(port: serverPort, path: "/auth/apple/exchange", json: body))
        #expect(answer.status == 200, "\(answer.body)\n\(server.output)")
        let tokens = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        #expect((tokens?["access_token"] as? String)?.isEmpty == false)
        #expect((tokens?["refresh_token"] as? String)?.isEmpty == false)

        // The wrong nonce proves the server really checks what the dev token carries.
        let wrong = try JSONSerialization.data(withJSONObject: ["id_token": idToken, "nonce": "another"])
        #expect(await TestHTTP.post(port: serverPort, path: "/auth/apple/exchange", json: wrong)?.status == 400)

        let curl = try await IssuerCommand.run(
            ["dev", "token", "--curl", "--issuer-url", "http://127.0.0.1:\(serverPort)"], in: directory)
        #expect(curl.code == 0)
        #expect(curl.output.hasPrefix("curl -sS -X POST 'http://127.0.0.1:\(serverPort)/auth/apple/exchange'"), "\(curl.output)")
    }

    @Test("the Android path without Google: dev google's keys, a Credential-Manager-shaped dev token exchanged at /auth/google/exchange")
    func googleExchangeWithoutGoogle() async throws {
        let database = try await TestCluster.freshDatabase()
        let directory = try TestDirectories.created("dev-google")
        defer { TestDirectories.remove(directory) }
        let ports = TestPorts.distinct(2)
        let (googlePort, serverPort) = (ports[0], ports[1])
        let google = try IssuerCommand.start(["dev", "google", "--port", "\(googlePort)"], in: directory)
        defer { google.kill() }
        #expect(await TestHTTP.waitUntilOK(port: googlePort, path: "/oauth2/v3/certs"), "dev google never answered: \(google.output)")
        // The providers file the banner prints is the one to serve with.
        let banner = google.output
        let json = try #require(banner.range(of: "[{").flatMap { start in banner.range(of: "}]", range: start.lowerBound..<banner.endIndex).map { String(banner[start.lowerBound..<$0.upperBound]) } })
        try json.write(to: directory.appendingPathComponent("providers.json"), atomically: true, encoding: .utf8)

        #expect(try await IssuerCommand.run(["keys", "init", "--keys-dir", "keys"], in: directory).code == 0)
        let server = try IssuerCommand.start(["serve", "--port", "\(serverPort)"], in: directory, environment: [
            "ISSUER_DATABASE_URL": database, "ISSUER_KEYS_DIR": "keys", "ISSUER_PROVIDERS_FILE": "providers.json",
        ])
        defer { server.kill() }
        #expect(await TestHTTP.waitUntilOK(port: serverPort, path: "/readyz"), "serve never became ready: \(server.output)")

        let token = try await IssuerCommand.run(["dev", "token", "--provider", "google", "--nonce", "raw-nonce-2"], in: directory)
        #expect(token.code == 0, "\(token.output)")
        let idToken = token.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let body = try JSONSerialization.data(withJSONObject: ["id_token": idToken, "nonce": "raw-nonce-2"])
        let answer = try #require(await TestHTTP.post(port: serverPort, path: "/auth/google/exchange", json: body))
        #expect(answer.status == 200, "\(answer.body)\n\(server.output)")
        // Google's tokens are not Apple's: the same token at Apple's exchange is refused.
        #expect(await TestHTTP.post(port: serverPort, path: "/auth/apple/exchange", json: body)?.status != 200)
        let curl = try await IssuerCommand.run(["dev", "token", "--provider", "google", "--curl", "--issuer-url", "http://127.0.0.1:9"], in: directory)
        #expect(curl.output.hasPrefix("curl -sS -X POST 'http://127.0.0.1:9/auth/google/exchange'"), "\(curl.output)")
    }

    @Test("dev token --nonce-claim puts its value in the nonce claim verbatim (the hosted flow's Apple nonce); --nonce hashes it; not both")
    func nonceClaimVerbatim() async throws {
        let directory = try TestDirectories.created("dev-nonce-claim")
        defer { TestDirectories.remove(directory) }
        // The shape /oauth2/authorize sends Apple: lowercase hex SHA-256 of a nonce only the server knows.
        let sent = String(repeating: "0123456789abcdef", count: 4)

        func nonceClaim(_ arguments: [String]) async throws -> String? {
            let result = try await IssuerCommand.run(["dev", "token"] + arguments, in: directory)
            #expect(result.code == 0, "\(result.output)")
            let parts = result.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
            try #require(parts.count == 3, "one JWT: \(result.output)")
            var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
            let claims = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: payload))) as? [String: Any]
            return claims?["nonce"] as? String
        }

        #expect(try await nonceClaim(["--nonce-claim", sent]) == sent)
        #expect(try await nonceClaim(["--nonce", sent]) != sent, "--nonce keeps hashing its raw value")
        let both = try await IssuerCommand.run(["dev", "token", "--nonce", "a", "--nonce-claim", sent], in: directory)
        #expect(both.code != 0, "one claim, two sources: refused")
        #expect(both.output.contains("--nonce-claim"), "\(both.output)")
    }

    @Test("dev apple refuses a port out of range and has no option to listen beyond loopback")
    func loopbackOnly() async throws {
        let result = try await IssuerCommand.run(["dev", "apple", "--port", "70000"], in: FileManager.default.temporaryDirectory)
        #expect(result.code != 0)
        let help = try await IssuerCommand.run(["dev", "apple", "--help"], in: FileManager.default.temporaryDirectory)
        #expect(!help.output.contains("--host"), "no option to listen anywhere but loopback")
    }
}

/// docs/reference.md, "DPoP", without a device: `issuer dev token --curl --dpop` signs in bound to
/// the dev device key, and `issuer dev dpop` makes the proofs of each later request.
@Suite("issuer dev dpop, end to end")
struct DevDPoPCommandTests {
    @Test("a session bound to the dev device key: signed in with --dpop, refreshed and at /userinfo with dev dpop's proofs, refused without them")
    func boundSession() async throws {
        let database = try await TestCluster.freshDatabase()
        let directory = try TestDirectories.created("dev-dpop")
        defer { TestDirectories.remove(directory) }
        let ports = TestPorts.distinct(2)
        let (applePort, serverPort) = (ports[0], ports[1])
        let base = "http://127.0.0.1:\(serverPort)"
        let apple = try IssuerCommand.start(["dev", "apple", "--port", "\(applePort)"], in: directory)
        defer { apple.kill() }
        #expect(await TestHTTP.waitUntilOK(port: applePort, path: "/auth/keys"), "dev apple never answered: \(apple.output)")
        #expect(try await IssuerCommand.run(["keys", "init", "--keys-dir", "keys"], in: directory).code == 0)
        let server = try IssuerCommand.start(["serve", "--port", "\(serverPort)", "--url", base], in: directory, environment: [
            "ISSUER_DATABASE_URL": database, "ISSUER_KEYS_DIR": "keys",
            "ISSUER_APPLE_JWKS_URL": "http://127.0.0.1:\(applePort)/auth/keys", "ISSUER_APPLE_CLIENT_IDS": "dev.issuer.local",
        ])
        defer { server.kill() }
        #expect(await TestHTTP.waitUntilOK(port: serverPort, path: "/readyz"), "serve never became ready: \(server.output)")

        let curl = try await IssuerCommand.run(["dev", "token", "--curl", "--dpop", "--issuer-url", base], in: directory)
        #expect(curl.code == 0, "\(curl.output)")
        let proof = try #require(Self.quoted(after: "-H 'DPoP: ", in: curl.output), "\(curl.output)")
        let body = try #require(Self.quoted(after: "-d '", in: curl.output), "\(curl.output)")
        let signIn = try #require(await TestHTTP.request(
            port: serverPort, path: "/auth/apple/exchange", method: .POST,
            headers: [("Content-Type", "application/json"), ("DPoP", proof)], body: Data(body.utf8)))
        #expect(signIn.status == 200, "\(signIn.body)")
        let tokens = try #require(try JSONSerialization.jsonObject(with: Data(signIn.body.utf8)) as? [String: Any])
        #expect(tokens["token_type"] as? String == "DPoP")
        let thumbprint = try await IssuerCommand.run(["dev", "dpop", "--thumbprint"], in: directory)
        #expect(Self.confirmedKey(tokens["access_token"]) == thumbprint.output.trimmingCharacters(in: .whitespacesAndNewlines))

        // The refresh needs a proof of the key; dev dpop makes one.
        let form = "grant_type=refresh_token&client_id=clanboards-mobile&refresh_token=\(try #require(tokens["refresh_token"] as? String))"
        let formHeader = ("Content-Type", "application/x-www-form-urlencoded")
        let bare = await TestHTTP.request(port: serverPort, path: "/oauth2/token", method: .POST, headers: [formHeader], body: Data(form.utf8))
        #expect(bare?.status == 400)
        let refreshProof = try await IssuerCommand.run(["dev", "dpop", "--url", base + "/oauth2/token"], in: directory)
        let refreshed = try #require(await TestHTTP.request(
            port: serverPort, path: "/oauth2/token", method: .POST,
            headers: [formHeader, ("DPoP", refreshProof.output.trimmingCharacters(in: .whitespacesAndNewlines))], body: Data(form.utf8)))
        #expect(refreshed.status == 200, "\(refreshed.body)")
        let accessToken = try #require(
            (try JSONSerialization.jsonObject(with: Data(refreshed.body.utf8)) as? [String: Any])?["access_token"] as? String)

        let userinfoProof = try await IssuerCommand.run(
            ["dev", "dpop", "--method", "GET", "--url", base + "/userinfo", "--access-token", accessToken], in: directory)
        let userinfo = await TestHTTP.request(port: serverPort, path: "/userinfo", method: .GET, headers: [
            ("Authorization", "DPoP " + accessToken), ("DPoP", userinfoProof.output.trimmingCharacters(in: .whitespacesAndNewlines)),
        ])
        #expect(userinfo?.status == 200, "\(userinfo?.body ?? "")")
        let asBearer = await TestHTTP.request(port: serverPort, path: "/userinfo", method: .GET, headers: [("Authorization", "Bearer " + accessToken)])
        #expect(asBearer?.status == 401)
    }

    /// The single-quoted shell word that starts right after `marker` (the dev token's curl line
    /// quotes nothing that contains a quote).
    static func quoted(after marker: String, in text: String) -> String? {
        guard let start = text.range(of: marker) else { return nil }
        return text[start.upperBound...].split(separator: "'", maxSplits: 1).first.map(String.init)
    }

    /// The `cnf.jkt` of a JWT's payload.
    static func confirmedKey(_ token: Any?) -> String? {
        guard let parts = (token as? String)?.split(separator: "."), parts.count == 3 else { return nil }
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        guard let data = Data(base64Encoded: payload),
              let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return (claims["cnf"] as? [String: Any])?["jkt"] as? String
    }
}

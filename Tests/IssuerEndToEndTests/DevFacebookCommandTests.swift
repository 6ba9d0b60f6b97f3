import Crypto
import Foundation
import JOSE
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// "Try it without Facebook": `issuer dev facebook` plays Facebook on loopback (Limited Login's
/// keys, `debug_token` and `me` for dev access tokens, the Login dialog and its token endpoint,
/// the permissions removal), `issuer dev token --provider facebook` mints what an app would get,
/// and `issuer dev facebook callback` posts Facebook's signed callbacks. What the stand-in signs
/// is checked here with JOSE's RS256 verifier and swift-crypto's HMAC, never with the stand-in's
/// own code.
@Suite("issuer dev facebook, end to end")
struct DevFacebookCommandTests {
    static let appID = "100000000000001"
    static let appSecret = "dev-facebook-app-secret"
    /// The app access token, with its `|` percent-encoded as a query carries it.
    static let appToken = appID + "%7C" + appSecret

    @Test("a Limited Login dev token verifies against the stand-in's JWKS with Facebook's claims and the hex SHA-256 of its raw nonce; the banner's providers file names the stand-in")
    func limitedLoginToken() async throws {
        try await Self.withStandIn("dev-facebook-token") { facebook, port, directory in
            let entry = try Self.providersEntry(facebook.output)
            let base = "http://127.0.0.1:\(port)"
            #expect(entry["id"] as? String == "facebook")
            #expect(entry["kind"] as? String == "facebook")
            #expect(entry["app_id"] as? String == Self.appID)
            #expect(entry["app_secret"] as? String == Self.appSecret)
            #expect(entry["jwks_uri"] as? String == base + "/.well-known/oauth/openid/jwks/")
            #expect(entry["graph_url"] as? String == base)
            #expect(entry["authorization_endpoint"] as? String == base + "/v23.0/dialog/oauth")
            #expect(entry["token_endpoint"] as? String == base + "/v23.0/oauth/access_token")
            #expect(entry["graph_version"] == nil, "v23.0 is the issuer's default")

            let keys = try await Self.servedKeys(port: port)
            let token = try await IssuerInvocation.run(["dev", "token", "--provider", "facebook", "--nonce", "raw-nonce-fb"], in: directory)
            #expect(token.code == 0, "\(token.stderr)")
            let claims = try Self.verifiedClaims(token.stdout, keys: keys)
            #expect(claims["iss"] as? String == "https://www.facebook.com")
            #expect(claims["aud"] as? String == Self.appID)
            #expect(claims["sub"] as? String == "dev-facebook-user-1")
            #expect(claims["nonce"] as? String == Self.hexSHA256("raw-nonce-fb"))
            #expect(claims["email"] as? String == "dev@issuer.local")
            #expect((claims["name"] as? String)?.isEmpty == false)
            #expect((claims["given_name"] as? String)?.isEmpty == false)
            #expect((claims["family_name"] as? String)?.isEmpty == false)
            #expect((claims["picture"] as? String)?.hasPrefix("https://") == true)
            #expect((claims["jti"] as? String)?.isEmpty == false)
            let iat = try #require(claims["iat"] as? Int), exp = try #require(claims["exp"] as? Int)
            #expect(exp > iat)

            // Facebook's tokens always carry a nonce: without --nonce one is made and printed on stderr.
            let bare = try await IssuerInvocation.run(["dev", "token", "--provider", "facebook", "--sub", "12345"], in: directory)
            let made = try #require(bare.stderr.split(separator: "\n").first { $0.hasPrefix("nonce: ") }?.dropFirst("nonce: ".count))
            let bareClaims = try Self.verifiedClaims(bare.stdout, keys: keys)
            #expect(bareClaims["nonce"] as? String == Self.hexSHA256(String(made)))
            #expect(bareClaims["sub"] as? String == "12345")

            // With --curl the made nonce travels with the token.
            let curl = try await IssuerInvocation.run(
                ["dev", "token", "--provider", "facebook", "--curl", "--issuer-url", "http://127.0.0.1:9"], in: directory)
            #expect(curl.stdout.hasPrefix("curl -sS -X POST 'http://127.0.0.1:9/auth/facebook/exchange'"), "\(curl.stdout)")
            let body = try #require(DevDPoPCommandTests.quoted(after: "-d '", in: curl.stdout))
            let sent = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
            let rawNonce = try #require(sent["nonce"])
            let sentToken = try #require(sent["id_token"])
            #expect(try Self.verifiedClaims(sentToken, keys: keys)["nonce"] as? String == Self.hexSHA256(rawNonce))

            let misuse = try await IssuerInvocation.run(["dev", "token", "--access-token"], in: directory)
            #expect(misuse.code != 0, "--access-token is Facebook's only")
        }
    }

    @Test("debug_token vouches for a dev access token with the app token; refuses a wrong app token; says is_valid false for a forged or expired token")
    func debugToken() async throws {
        try await Self.withStandIn("dev-facebook-debug") { _, port, directory in
            let minted = try await IssuerInvocation.run(
                ["dev", "token", "--provider", "facebook", "--access-token", "--sub", "dev-facebook-user-2", "--lifetime", "3600"], in: directory)
            #expect(minted.code == 0, "\(minted.stderr)")
            let token = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

            let good = try await Self.graph(port, "debug_token?input_token=\(Self.encoded(token))&access_token=\(Self.appToken)")
            #expect(good.status == 200, "\(good.body)")
            let data = try #require(good.json["data"] as? [String: Any])
            #expect(data["is_valid"] as? Bool == true)
            #expect(data["user_id"] as? String == "dev-facebook-user-2")
            #expect(data["app_id"] as? String == Self.appID)
            #expect(data["type"] as? String == "USER")
            #expect((data["scopes"] as? [String])?.contains("email") == true)
            #expect((data["expires_at"] as? Int).map { $0 > Int(Date().timeIntervalSince1970) } == true)

            for appToken in [Self.appID + "%7Cwrong-secret", "999%7C" + Self.appSecret, ""] {
                let refused = try await Self.graph(port, "debug_token?input_token=\(Self.encoded(token))&access_token=\(appToken)")
                #expect(refused.status == 400, "\(appToken): \(refused.body)")
                let error = refused.json["error"] as? [String: Any]
                #expect(error?["type"] as? String == "OAuthException")
                #expect(error?["code"] as? Int == 190)
            }

            // Minted here, in the format the stand-in documents, with swift-crypto's HMAC.
            let future = Int(Date().timeIntervalSince1970) + 3600
            let past = Int(Date().timeIntervalSince1970) - 60
            let flipped = String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")
            let cases: [(String, Bool, String)] = [
                (Self.accessToken(subject: "dev-facebook-user-1", expiry: future), true, "minted independently"),
                (Self.accessToken(subject: "dev-facebook-user-1", expiry: past), false, "expired"),
                (Self.accessToken(subject: "dev-facebook-user-1", expiry: future, secret: "another-secret"), false, "another key"),
                (flipped, false, "MAC altered"),
                ("EAAnot-a-dev-token", false, "not a dev token"),
            ]
            for (input, valid, why) in cases {
                let answer = try await Self.graph(port, "debug_token?input_token=\(Self.encoded(input))&access_token=\(Self.appToken)")
                #expect(answer.status == 200, "\(why): \(answer.body)")
                #expect((answer.json["data"] as? [String: Any])?["is_valid"] as? Bool == valid, "\(why): \(answer.body)")
            }
        }
    }

    @Test("me answers the fields asked for only with the token's appsecret_proof, and refuses an expired token")
    func me() async throws {
        try await Self.withStandIn("dev-facebook-me") { _, port, _ in
            let token = Self.accessToken(subject: "dev-facebook-user-1", expiry: Int(Date().timeIntervalSince1970) + 3600)
            let proof = Self.hexHMAC(token)
            let asked = try await Self.graph(
                port, "me?fields=id,name,email&access_token=\(Self.encoded(token))&appsecret_proof=\(proof)")
            #expect(asked.status == 200, "\(asked.body)")
            #expect(asked.json["id"] as? String == "dev-facebook-user-1")
            #expect(asked.json["email"] as? String == "dev-facebook-user-1@dev.issuer.local")
            #expect((asked.json["name"] as? String)?.isEmpty == false)
            #expect(asked.json["first_name"] == nil, "not asked for")
            let parts = try await Self.graph(
                port, "me?fields=first_name,last_name&access_token=\(Self.encoded(token))&appsecret_proof=\(proof)")
            #expect(parts.json["first_name"] != nil && parts.json["last_name"] != nil && parts.json["email"] == nil, "\(parts.body)")

            let otherProof = Self.hexHMAC(token + "x")
            for query in ["appsecret_proof=\(otherProof)", "appsecret_proof=", ""] {
                let refused = try await Self.graph(port, "me?fields=id&access_token=\(Self.encoded(token))&\(query)")
                #expect(refused.status == 400, "\(query): \(refused.body)")
                #expect((refused.json["error"] as? [String: Any])?["code"] as? Int == 100, "\(query): \(refused.body)")
            }
            let expired = Self.accessToken(subject: "dev-facebook-user-1", expiry: Int(Date().timeIntervalSince1970) - 60)
            let stale = try await Self.graph(port, "me?fields=id&access_token=\(Self.encoded(expired))&appsecret_proof=\(Self.hexHMAC(expired))")
            #expect(stale.status == 400)
            #expect((stale.json["error"] as? [String: Any])?["code"] as? Int == 190)
        }
    }

    @Test("the dialog's code redeems once at the token endpoint (POST or GET) for that user's access token, with the app secret, the same redirect_uri and the PKCE verifier; Cancel is access_denied")
    func dialogRoundTrip() async throws {
        try await Self.withStandIn("dev-facebook-dialog") { _, port, _ in
            let verifier = "dev-facebook-verifier-" + String(repeating: "0123456789", count: 4)
            let challenge = Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
            let redirect = "http://127.0.0.1:1/auth/facebook/callback"
            let dialog = "client_id=\(Self.appID)&redirect_uri=\(Self.encoded(redirect))&state=state-1&response_type=code"
                + "&scope=public_profile%20email&code_challenge=\(challenge)&code_challenge_method=S256"

            let page = try #require(await TestHTTP.get(port: port, path: "/v23.0/dialog/oauth?" + dialog))
            #expect(page.status == 200)
            #expect(page.body.contains("action=\"/v23.0/dialog/oauth/approve\""), "\(page.body)")
            #expect(page.body.contains("value=\"dev-facebook-user-1\"") && page.body.contains("value=\"dev-facebook-user-2\""))
            #expect(page.body.contains(">Cancel<"))
            #expect(await TestHTTP.get(port: port, path: "/v23.0/dialog/oauth?" + dialog.replacingOccurrences(of: Self.appID, with: "42"))?.status == 400)

            /// A code of the dialog for `user`, after checking the redirect carries back the state.
            func code(_ user: String) throws -> String {
                let answer = try #require(Self.rawGET(port: port, path: "/v23.0/dialog/oauth/approve?\(dialog)&user=\(user)"))
                #expect(answer.statusLine.hasPrefix("HTTP/1.1 302"), "\(answer.statusLine)")
                let location = try #require(answer.field("Location").flatMap(URLComponents.init(string:)))
                #expect(location.path == "/auth/facebook/callback")
                #expect(location.queryItems?.first { $0.name == "state" }?.value == "state-1")
                return try #require(location.queryItems?.first { $0.name == "code" }?.value)
            }
            func redeem(_ fields: [(String, String)], get: Bool = false) async throws -> (status: Int, json: [String: Any], body: String) {
                let form = fields.map { "\($0.0)=\(Self.encoded($0.1))" }.joined(separator: "&")
                let answer = get
                    ? await TestHTTP.request(port: port, path: "/v23.0/oauth/access_token?" + form, method: .GET, headers: [])
                    : await TestHTTP.request(
                        port: port, path: "/v23.0/oauth/access_token", method: .POST,
                        headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(form.utf8))
                let reply = try #require(answer)
                return (reply.status, (try? JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]) ?? [:], reply.body)
            }
            func fields(_ code: String, verifier: String = verifier, secret: String = Self.appSecret, redirect: String = redirect) -> [(String, String)] {
                [("client_id", Self.appID), ("client_secret", secret), ("redirect_uri", redirect), ("code", code), ("code_verifier", verifier)]
            }

            let first = try code("dev-facebook-user-2")
            let tokens = try await redeem(fields(first))
            #expect(tokens.status == 200, "\(tokens.body)")
            #expect(tokens.json["token_type"] as? String == "bearer")
            #expect(tokens.json["expires_in"] as? Int == 5_183_944)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            let vouched = try await Self.graph(port, "debug_token?input_token=\(Self.encoded(accessToken))&access_token=\(Self.appToken)")
            #expect((vouched.json["data"] as? [String: Any])?["user_id"] as? String == "dev-facebook-user-2", "\(vouched.body)")
            #expect((vouched.json["data"] as? [String: Any])?["is_valid"] as? Bool == true)
            let again = try await redeem(fields(first))
            #expect(again.status == 400, "a code redeems once: \(again.body)")
            #expect((again.json["error"] as? [String: Any])?["type"] as? String == "OAuthException")

            let viaGET = try await redeem(fields(try code("dev-facebook-user-1")), get: true)
            #expect(viaGET.status == 200, "\(viaGET.body)")

            let refusals: [(String, [(String, String)])] = [
                ("wrong verifier", fields(try code("dev-facebook-user-1"), verifier: verifier + "x")),
                ("no verifier", Array(fields(try code("dev-facebook-user-1")).dropLast())),
                ("wrong secret", fields(try code("dev-facebook-user-1"), secret: "not-the-secret")),
                ("other redirect_uri", fields(try code("dev-facebook-user-1"), redirect: redirect + "2")),
                ("unknown code", fields("dev-facebook-code-made-up")),
            ]
            for (why, form) in refusals {
                let refused = try await redeem(form)
                #expect(refused.status == 400, "\(why): \(refused.body)")
                #expect((refused.json["error"] as? [String: Any])?["type"] as? String == "OAuthException", "\(why): \(refused.body)")
            }

            let cancelled = try #require(Self.rawGET(port: port, path: "/v23.0/dialog/oauth/approve?\(dialog)&cancel=1"))
            #expect(cancelled.statusLine.hasPrefix("HTTP/1.1 302"))
            #expect(cancelled.field("Location")
                == redirect + "?error=access_denied&error_reason=user_denied&error_description=Permissions+error&state=state-1")
        }
    }

    @Test("removing the app's permissions takes the app token and names the user; a wrong app token is refused")
    func removePermissions() async throws {
        try await Self.withStandIn("dev-facebook-permissions") { facebook, port, _ in
            let removed = try #require(await TestHTTP.request(
                port: port, path: "/v23.0/dev-facebook-user-2/permissions?access_token=\(Self.appToken)", method: .DELETE, headers: []))
            #expect(removed.status == 200)
            #expect(try JSONSerialization.jsonObject(with: Data(removed.body.utf8)) as? [String: Bool] == ["success": true])
            #expect(await Self.eventually { facebook.output.contains("dev-facebook-user-2") }, "\(facebook.output)")
            let refused = await TestHTTP.request(
                port: port, path: "/v23.0/dev-facebook-user-1/permissions?access_token=\(Self.appID)%7Cwrong", method: .DELETE, headers: [])
            #expect(refused?.status == 400)
        }
    }

    @Test("callback posts a signed_request that verifies with the app secret to the issuer's deauthorize or data-deletion URL and prints the answer")
    func callbackSignedRequest() async throws {
        let directory = try TestDirectories.created("dev-facebook-callback")
        defer { TestDirectories.remove(directory) }
        let issuer = try CallbackRecorder(answer: #"{"url":"http://issuer/auth/facebook/data-deletion?code=ABC","confirmation_code":"ABC"}"#)
        defer { issuer.stop() }

        let deleted = try await IssuerInvocation.run([
            "dev", "facebook", "callback", "data-deletion", "--user-id", "dev-facebook-user-1",
            "--issuer-url", "http://127.0.0.1:\(issuer.port)/", "--issued-at", "1700000000",
        ], in: directory)
        #expect(deleted.code == 0, "\(deleted.stdout) \(deleted.stderr)")
        #expect(deleted.stdout.contains("200") && deleted.stdout.contains(#""confirmation_code":"ABC""#), "\(deleted.stdout)")
        let request = try #require(issuer.requests.first)
        #expect(request.statusLine.hasPrefix("POST /auth/facebook/data-deletion "), "\(request.statusLine)")
        #expect(request.field("Content-Type") == "application/x-www-form-urlencoded")
        let payload = try Self.verifiedSignedRequest(String(decoding: request.body, as: UTF8.self))
        #expect(payload["algorithm"] as? String == "HMAC-SHA256")
        #expect(payload["issued_at"] as? Int == 1_700_000_000)
        #expect(payload["user_id"] as? String == "dev-facebook-user-1")

        let deauthorized = try await IssuerInvocation.run(
            ["dev", "facebook", "callback", "deauthorize", "--user-id", "42", "--provider", "fb-dev"], in: directory,
            environment: ["ISSUER_URL": "http://127.0.0.1:\(issuer.port)"])
        #expect(deauthorized.code == 0, "\(deauthorized.stderr)")
        let second = try #require(issuer.requests.dropFirst().first)
        #expect(second.statusLine.hasPrefix("POST /auth/fb-dev/deauthorize "), "\(second.statusLine)")
        let now = Int(Date().timeIntervalSince1970)
        let issuedAt = try #require(try Self.verifiedSignedRequest(String(decoding: second.body, as: UTF8.self))["issued_at"] as? Int)
        #expect(abs(issuedAt - now) < 300, "now by default")

        issuer.answerStatus("400 Bad Request", body: #"{"error":"invalid_request"}"#)
        let refused = try await IssuerInvocation.run(
            ["dev", "facebook", "callback", "deauthorize", "--user-id", "42", "--issuer-url", "http://127.0.0.1:\(issuer.port)"], in: directory)
        #expect(refused.code == 1, "a refusal is a failure: \(refused.stdout) \(refused.stderr)")
        #expect(refused.stdout.contains("invalid_request"))
        #expect(try await IssuerInvocation.run(["dev", "facebook", "callback", "forget", "--user-id", "42"], in: directory).code == 2)
    }

    @Test("an issuer serving the banner's providers file signs one person in through the stand-in by Limited Login, a classic access token and the hosted flow; Cancel in the dialog is access_denied; dev facebook callback's deauthorize ends that person's sessions and its data deletion answers a status page that opens")
    func signInWithoutFacebook() async throws {
        let database = try await TestCluster.freshDatabase()
        try await Self.withStandIn("dev-facebook-serve") { facebook, _, directory in
            let banner = facebook.output
            let start = try #require(banner.range(of: "[{")), end = try #require(banner.range(of: "}]"))
            try String(banner[start.lowerBound..<end.upperBound]).write(
                to: directory.appendingPathComponent("providers.json"), atomically: true, encoding: .utf8)
            #expect(try await IssuerCommand.run(["keys", "init", "--keys-dir", "keys"], in: directory).code == 0)
            let serverPort = TestPorts.random()
            let base = "http://127.0.0.1:\(serverPort)"
            let server = try IssuerCommand.start(["serve", "--port", "\(serverPort)", "--url", base], in: directory, environment: [
                "ISSUER_DATABASE_URL": database, "ISSUER_KEYS_DIR": "keys", "ISSUER_PROVIDERS_FILE": "providers.json",
            ])
            defer { server.kill() }
            try #require(await TestHTTP.waitUntilOK(port: serverPort, path: "/readyz"), "serve never became ready: \(server.output)")

            /// Runs `dev token … --curl` and sends its body to the exchange: the issuer's user and the refresh token.
            func exchanged(_ arguments: [String]) async throws -> (user: String?, refreshToken: String?) {
                let curl = try await IssuerInvocation.run(["dev", "token", "--provider", "facebook", "--curl", "--issuer-url", base] + arguments, in: directory)
                #expect(curl.stdout.contains("'\(base)/auth/facebook/exchange'"), "\(curl.stdout)")
                let body = try #require(DevDPoPCommandTests.quoted(after: "-d '", in: curl.stdout), "\(curl.stdout)")
                let answer = try #require(await TestHTTP.post(port: serverPort, path: "/auth/facebook/exchange", json: Data(body.utf8)))
                #expect(answer.status == 200, "\(arguments): \(answer.body)\n\(server.output)")
                return (Self.subject(ofTokens: answer.body), Self.refreshToken(ofTokens: answer.body))
            }
            let limitedLogin = try await exchanged([])
            let limited = try #require(limitedLogin.user)
            let classic = try await exchanged(["--access-token"])
            #expect(classic.user == limited, "one Facebook user, one user by either path")
            let other = try await exchanged(["--access-token", "--sub", "dev-facebook-user-2"])
            #expect(other.user != limited)

            // The hosted flow: the issuer sends the browser to the stand-in's dialog, which sends it back with a code.
            let verifier = "dev-facebook-hosted-" + String(repeating: "x", count: 40)
            let challenge = Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
            let authorize = "/oauth2/authorize?response_type=code&client_id=clanboards-mobile&redirect_uri=clanboards%3A%2F%2Foauthredirect"
                + "&scope=openid%20profile&state=client-state&code_challenge=\(challenge)&code_challenge_method=S256&provider=facebook"
            func dialogChoice(_ choice: String) throws -> [String: String] {
                let toFacebook = try #require(Self.rawGET(port: serverPort, path: authorize))
                let dialog = try #require(toFacebook.field("Location").flatMap(URLComponents.init(string:)), "\(toFacebook.statusLine)")
                #expect(dialog.path == "/v23.0/dialog/oauth")
                #expect(dialog.queryItems?.first { $0.name == "client_id" }?.value == Self.appID)
                let approved = try #require(Self.rawGET(port: dialog.port ?? 0, path: "/v23.0/dialog/oauth/approve?\(dialog.percentEncodedQuery ?? "")&\(choice)"))
                let callback = try #require(approved.field("Location").flatMap(URLComponents.init(string:)))
                #expect(callback.path == "/auth/facebook/callback")
                let back = try #require(Self.rawGET(port: serverPort, path: callback.path + "?" + (callback.percentEncodedQuery ?? "")))
                let client = try #require(back.field("Location").flatMap(URLComponents.init(string:)), "\(back.statusLine) \(server.output)")
                #expect(client.scheme == "clanboards")
                return (client.queryItems ?? []).reduce(into: [:]) { $0[$1.name] = $1.value }
            }
            let signedIn = try dialogChoice("user=dev-facebook-user-1")
            #expect(signedIn["state"] == "client-state")
            let code = try #require(signedIn["code"], "\(signedIn)")
            let form = "grant_type=authorization_code&client_id=clanboards-mobile&redirect_uri=clanboards%3A%2F%2Foauthredirect"
                + "&code=\(Self.encoded(code))&code_verifier=\(verifier)"
            let tokens = try #require(await TestHTTP.request(
                port: serverPort, path: "/oauth2/token", method: .POST,
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(form.utf8)))
            #expect(tokens.status == 200, "\(tokens.body)")
            #expect(Self.subject(ofTokens: tokens.body) == limited, "the hosted flow reaches the same user")

            let cancelled = try dialogChoice("cancel=1")
            #expect(cancelled["error"] == "access_denied", "\(cancelled)")
            #expect(cancelled["state"] == "client-state")

            // Facebook calls the issuer: the person removed the app. Its sessions begun through
            // Facebook by the request's issued_at end; another person's do not.
            let userOneRefreshTokens = try [
                ("Limited Login", #require(limitedLogin.refreshToken)), ("access token", #require(classic.refreshToken)),
                ("hosted flow", #require(Self.refreshToken(ofTokens: tokens.body))),
            ]
            let otherRefreshToken = try #require(other.refreshToken)
            /// `POST /oauth2/token` with `grant_type=refresh_token`: the status and the `error`, if any.
            func refreshed(_ refreshToken: String) async throws -> (status: Int, error: String?, body: String) {
                let form = "grant_type=refresh_token&client_id=clanboards-mobile&refresh_token=\(Self.encoded(refreshToken))"
                let answer = try #require(await TestHTTP.request(
                    port: serverPort, path: "/oauth2/token", method: .POST,
                    headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(form.utf8)))
                let json = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
                return (answer.status, json?["error"] as? String, answer.body)
            }
            // issued_at is in whole seconds, as Facebook's is: the sign-ins' second has passed
            // before the request is made, so that it is issued after all of them.
            let signedInBy = Int(Date().timeIntervalSince1970)
            while Int(Date().timeIntervalSince1970) <= signedInBy { try await Task.sleep(for: .milliseconds(50)) }
            let deauthorized = try await IssuerInvocation.run(
                ["dev", "facebook", "callback", "deauthorize", "--user-id", "dev-facebook-user-1", "--issuer-url", base], in: directory)
            #expect(deauthorized.code == 0, "\(deauthorized.stdout) \(deauthorized.stderr)\n\(server.output)")
            #expect(deauthorized.stdout.contains("POST \(base)/auth/facebook/deauthorize\n"), "\(deauthorized.stdout)")
            let deauthorizeAnswer = try #require(Self.lastLine(deauthorized.stdout))
            #expect(try JSONSerialization.jsonObject(with: Data(deauthorizeAnswer.utf8)) as? [String: String] == [:], "\(deauthorized.stdout)")
            for (how, refreshToken) in userOneRefreshTokens {
                let refused = try await refreshed(refreshToken)
                #expect(refused.status == 400 && refused.error == "invalid_grant", "\(how): \(refused.body)")
            }
            let kept = try await refreshed(otherRefreshToken)
            #expect(kept.status == 200, "another person's session stays: \(kept.body)")

            // Then asked for their data to be deleted: the answer names a status page, which opens.
            let deletion = try await IssuerInvocation.run(
                ["dev", "facebook", "callback", "data-deletion", "--user-id", "dev-facebook-user-1", "--issuer-url", base], in: directory)
            #expect(deletion.code == 0, "\(deletion.stdout) \(deletion.stderr)\n\(server.output)")
            let deletionAnswer = try #require(Self.lastLine(deletion.stdout))
            let confirmation = try #require(
                try JSONSerialization.jsonObject(with: Data(deletionAnswer.utf8)) as? [String: String], "\(deletion.stdout)")
            let confirmationCode = try #require(confirmation["confirmation_code"], "\(confirmation)")
            #expect(!confirmationCode.isEmpty)
            let statusURL = try #require(confirmation["url"], "\(confirmation)")
            #expect(statusURL == "\(base)/auth/facebook/data-deletion?code=\(confirmationCode)", "\(statusURL)")
            let statusPage = try #require(URLComponents(string: statusURL))
            let page = try #require(Self.rawGET(port: serverPort, path: statusPage.path + "?" + (statusPage.percentEncodedQuery ?? "")))
            #expect(page.statusLine.hasPrefix("HTTP/1.1 200"), "\(page.statusLine)")
            #expect(page.field("Content-Type")?.hasPrefix("text/html") == true, "\(page.field("Content-Type") ?? "")")
            #expect(String(decoding: page.body, as: UTF8.self).contains("Data deletion request"))
            // The person's identity went with their data: signing in again through Facebook makes a new user.
            let again = try await exchanged([])
            #expect(again.user != nil && again.user != limited, "the user was deleted with their only identity")
        }
    }

    @Test("dev facebook refuses a port out of range and has no option to listen beyond loopback")
    func loopbackOnly() async throws {
        let result = try await IssuerCommand.run(["dev", "facebook", "--port", "70000"], in: FileManager.default.temporaryDirectory)
        #expect(result.code != 0)
        let help = try await IssuerCommand.run(["dev", "facebook", "serve", "--help"], in: FileManager.default.temporaryDirectory)
        #expect(help.output.contains("--port"))
        #expect(!help.output.contains("--host"), "no option to listen anywhere but loopback")
    }

    // MARK: - Helpers

    /// Runs `body` with `issuer dev facebook` (bare: serving is its default) started in a fresh
    /// directory on a free port, once its keys answer.
    static func withStandIn(_ name: String, _ body: (ChildProcess, Int, URL) async throws -> Void) async throws {
        let directory = try TestDirectories.created(name)
        defer { TestDirectories.remove(directory) }
        let port = TestPorts.random()
        let facebook = try IssuerCommand.start(["dev", "facebook", "--port", "\(port)"], in: directory)
        defer { facebook.kill() }
        try #require(await TestHTTP.waitUntilOK(port: port, path: "/.well-known/oauth/openid/jwks/"), "dev facebook never answered: \(facebook.output)")
        try await body(facebook, port, directory)
    }

    /// The providers file entry the banner prints.
    static func providersEntry(_ banner: String) throws -> [String: Any] {
        let start = try #require(banner.range(of: "[{"), "\(banner)")
        let end = try #require(banner.range(of: "}]", range: start.lowerBound..<banner.endIndex))
        let entries = try JSONSerialization.jsonObject(with: Data(banner[start.lowerBound..<end.upperBound].utf8)) as? [[String: Any]]
        return try #require(entries?.first)
    }

    static func servedKeys(port: Int) async throws -> [String: RSAPublicKey] {
        let jwks = try #require(await TestHTTP.get(port: port, path: "/.well-known/oauth/openid/jwks/"))
        #expect(jwks.status == 200)
        let keys = try JWKS.rsaVerificationKeys(fromJSON: Data(jwks.body.utf8))
        #expect(!keys.isEmpty)
        return keys
    }

    /// The claims of an RS256 JWT whose signature verifies with the key its `kid` names.
    static func verifiedClaims(_ token: String, keys: [String: RSAPublicKey]) throws -> [String: Any] {
        let verified = try JWS.verify(token.trimmingCharacters(in: .whitespacesAndNewlines), allowedAlgorithms: [.rs256]) { header in
            header.kid.flatMap { keys[$0] }
        }
        return try #require(try JSONSerialization.jsonObject(with: verified.payload) as? [String: Any])
    }

    /// `GET /v23.0/<path and query>`: the status, the body, and the body as a JSON object.
    static func graph(_ port: Int, _ pathAndQuery: String) async throws -> (status: Int, body: String, json: [String: Any]) {
        let answer = try #require(await TestHTTP.get(port: port, path: "/v23.0/" + pathAndQuery))
        let json = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]) ?? [:]
        return (answer.status, answer.body, json)
    }

    /// A dev access token as the stand-in documents them:
    /// `EAADEV.<base64url(sub)>.<expiry>.<hex HMAC-SHA256(app secret, "<b64 sub>.<expiry>")>`.
    static func accessToken(subject: String, expiry: Int, secret: String = appSecret) -> String {
        let body = Base64URL.encode(Array(subject.utf8)) + ".\(expiry)"
        return "EAADEV." + body + "." + hexHMAC(body, secret: secret)
    }

    static func hexHMAC(_ text: String, secret: String = appSecret) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: Data(secret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }

    static func hexSHA256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Percent-encoded for a query value (RFC 3986 unreserved characters kept).
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }

    /// The payload of a form `signed_request=<sig>.<payload>` whose signature is the HMAC-SHA256
    /// of the encoded payload keyed with the app secret, as Facebook's callbacks carry it.
    static func verifiedSignedRequest(_ form: String) throws -> [String: Any] {
        let value = try #require(form.hasPrefix("signed_request=") ? form.dropFirst("signed_request=".count) : nil, "\(form)")
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 2, "\(value)")
        #expect(!value.contains("="), "no padding")
        let signature = try #require(Base64URL.decode(parts[0]))
        let key = SymmetricKey(data: Data(appSecret.utf8))
        #expect(HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(parts[1].utf8), using: key))
        let payload = try #require(Base64URL.decode(parts[1]))
        return try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    }

    /// One `GET` on a raw connection, so that a redirect is seen rather than followed.
    static func rawGET(port: Int, path: String) -> RawHTTPAnswer? {
        guard let fd = LoopbackSocket.connect(port: port) else { return nil }
        defer { close(fd) }
        guard LoopbackSocket.sendAll(fd, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8) else { return nil }
        var pending: [UInt8] = []
        return RawHTTPAnswer.read(fd, pending: &pending)
    }

    /// The `sub` of the access token in a token answer (the issuer's user), read without verifying.
    static func subject(ofTokens body: String) -> String? {
        guard let tokens = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let parts = (tokens["access_token"] as? String)?.split(separator: "."), parts.count == 3,
              let payload = Base64URL.decode(parts[1]),
              let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { return nil }
        return claims["sub"] as? String
    }

    /// The `refresh_token` of a token answer.
    static func refreshToken(ofTokens body: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["refresh_token"] as? String
    }

    /// The last line that is not empty: what `dev facebook callback` prints of the issuer's answer.
    static func lastLine(_ output: String) -> String? {
        output.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init)
    }

    /// Whether `condition` holds within 30 s (a child process's output arriving; seconds late when
    /// the machine is loaded by the tests running beside this one).
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<600 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }
}

/// A loopback stand-in for the issuer's callback endpoints: records each request (line, fields,
/// body) and answers each with the status and body it is told.
final class CallbackRecorder: Sendable {
    let port: Int
    private let listener: Int32
    private let state: Mutex<State>

    private struct State {
        var requests: [RawHTTPAnswer] = []
        var status = "200 OK"
        var body: String
    }

    var requests: [RawHTTPAnswer] { state.withLock { $0.requests } }

    init(answer body: String) throws {
        let (fd, port) = try LoopbackSocket.listen(backlog: 8)
        self.port = port
        listener = fd
        state = Mutex(State(body: body))
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                serve(connection)
            }
        }
    }

    func answerStatus(_ status: String, body: String) {
        state.withLock {
            $0.status = status
            $0.body = body
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var pending: [UInt8] = []
        // A request reads as an answer does: a first line, fields, a body of Content-Length bytes.
        guard let request = RawHTTPAnswer.read(connection, pending: &pending) else { return }
        let (status, body) = state.withLock { state in
            state.requests.append(request)
            return (state.status, state.body)
        }
        let answer = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = LoopbackSocket.sendAll(connection, answer.utf8)
    }
}

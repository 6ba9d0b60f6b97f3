import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Logging
import Synchronization
import Testing
import TestSupport

@Suite("Request logging")
struct RequestLoggingTests {
    @Test("every log line of a request carries its request id, which the response returns; no token is ever logged")
    func requestIDAndNoSecrets() async throws {
        try await withIssuer { fixture in
            let lines = Mutex<[String]>([])
            var logger = Logger(label: "issuer") { label in
                JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
            }
            logger.logLevel = .debug
            var dependencies = fixture.dependencies
            dependencies.logger = logger
            let idToken = try fixture.apple.identityToken(subject: "logged.user")
            let secrets = Mutex<[String]>([idToken])
            try await buildApplication(dependencies).test(.router) { client in
                let signIn = try await client.postJSON("/auth/apple/exchange", ["id_token": idToken])
                let requestID = try #require(signIn.headers[HTTPField.Name("X-Request-Id")!])
                let refreshToken = signIn.json["refresh_token"] as! String
                secrets.withLock { $0 += [refreshToken, signIn.json["access_token"] as! String, signIn.json["id_token"] as! String] }
                let refused = try await client.postJSON("/auth/apple/exchange", ["id_token": idToken + "x"])
                #expect(refused.status == .badRequest)
                _ = try await RefreshRequest.post(client, refreshToken)

                let logged = lines.withLock { $0 }
                let signedIn = logged.filter { $0.contains("\"message\":\"signed in\"") }
                #expect(signedIn.count == 1)
                // Identifiers are written as the tokens write them, so a grep for a token's sid finds its lines.
                let sid = try #require(try Self.claims(signIn.json["access_token"] as? String)["sid"] as? String)
                #expect(sid == sid.lowercased())
                #expect(signedIn.first?.contains("\"sid\":\"\(sid)\"") == true, "\(signedIn)")
                #expect(signedIn.first?.contains("\"hb.request.id\":\"\(requestID)\"") == true)
                let refusedLine = logged.filter { $0.contains("request refused") }
                #expect(refusedLine.first?.contains(try #require(refused.headers[HTTPField.Name("X-Request-Id")!])) == true)
            }
            let logged = lines.withLock { $0 }.joined()
            #expect(!logged.isEmpty)
            #expect(logged.range(of: "\"(sid|sub|user)\":\"[0-9A-F-]*[A-F][0-9A-F-]*\"", options: .regularExpression) == nil,
                    "an identifier in upper case")
            for secret in secrets.withLock({ $0 }) {
                #expect(!logged.contains(secret), "a token or secret reached the log")
                #expect(!logged.contains(String(secret.suffix(40))), "part of a token reached the log")
            }
        }
    }

    /// The claims of a compact JWS, unverified (the test only reads its own issuer's token).
    static func claims(_ token: String?) throws -> [String: Any] {
        let part = try #require(token?.split(separator: ".").dropFirst().first.map(String.init))
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

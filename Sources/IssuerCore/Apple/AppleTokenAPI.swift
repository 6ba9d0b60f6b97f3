import Foundation

/// Apple's token and revoke endpoints, as docs/reference.md, "Apple token custody" uses them: redeem an authorization code for a
/// refresh token, and revoke a refresh token. Every answer is classified, none thrown: a remote
/// party's failure is an outcome to log and retry, never an error that escapes (docs/reference.md, "Faults and bad input").
public struct AppleTokenAPI: Sendable {
    /// How a redemption ended.
    public enum Redemption: Sendable, Equatable {
        /// Apple answered a refresh token (never logged) and the `id_token` that says whose it
        /// is (nil when the answer carried none).
        case redeemed(refreshToken: String, idToken: String?)
        /// Apple refused the code for good (`invalid_grant`: used, expired or not Apple's); not retried.
        case refused(String)
        /// No usable answer (unreachable, timed out, 5xx, a refused client secret): retried while the code lives.
        case failed(String)
    }

    /// How a revocation ended.
    public enum Revocation: Sendable, Equatable {
        /// Apple accepted it.
        case revoked
        /// Apple says the token is already invalid (`invalid_grant`): nothing left to revoke, so retries end.
        case alreadyInvalid
        /// No usable answer: retried with backoff.
        case failed(String)
    }

    private let transport: any AppleHTTPTransport
    private let secret: AppleClientSecret
    private let tokenURL: URL
    private let revokeURL: URL

    /// - Parameters: `ISSUER_APPLE_TOKEN_URL` and `ISSUER_APPLE_REVOKE_URL`, and the client secret signer.
    public init(transport: any AppleHTTPTransport, secret: AppleClientSecret, tokenURL: URL, revokeURL: URL) {
        self.transport = transport
        self.secret = secret
        self.tokenURL = tokenURL
        self.revokeURL = revokeURL
    }

    /// Redeems Apple's one-time `code` (grant `authorization_code`). Web codes name the
    /// `redirect_uri` they were issued for; native codes none.
    public func redeem(code: String, clientID: String, redirectURI: String?, timeout: Duration) async -> Redemption {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("client_id", clientID)]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        let answer: AppleHTTPAnswer
        do {
            fields.append(("client_secret", try secret.secret(clientID: clientID)))
            answer = try await transport.postForm(to: tokenURL, fields: fields, timeout: timeout)
        } catch {
            return .failed("\(error)")
        }
        if answer.status == 200 {
            let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
            guard let token = object?["refresh_token"] as? String, !token.isEmpty, token.utf8.count <= 4096 else {
                return .failed("HTTP 200 without a refresh_token")
            }
            let idToken = (object?["id_token"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            return .redeemed(refreshToken: token, idToken: idToken)
        }
        if answer.status == 400, answer.oauthError == "invalid_grant" { return .refused("invalid_grant") }
        return .failed("HTTP \(answer.status)\(answer.oauthError.map { " \($0)" } ?? "")")
    }

    /// Revokes a refresh token at Apple (`token_type_hint=refresh_token`).
    public func revoke(refreshToken: String, clientID: String, timeout: Duration) async -> Revocation {
        let answer: AppleHTTPAnswer
        do {
            let fields = [
                ("client_id", clientID), ("client_secret", try secret.secret(clientID: clientID)),
                ("token", refreshToken), ("token_type_hint", "refresh_token"),
            ]
            answer = try await transport.postForm(to: revokeURL, fields: fields, timeout: timeout)
        } catch {
            return .failed("\(error)")
        }
        if answer.status == 200 { return .revoked }
        if answer.status == 400, answer.oauthError == "invalid_grant" { return .alreadyInvalid }
        return .failed("HTTP \(answer.status)\(answer.oauthError.map { " \($0)" } ?? "")")
    }
}

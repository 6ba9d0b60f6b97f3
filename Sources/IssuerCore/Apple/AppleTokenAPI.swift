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

    /// How a call of a team transfer ended (docs/reference.md, "Apple team transfer").
    public enum MigrationAnswer: Sendable, Equatable {
        /// Apple answered these string members.
        case answered([String: String])
        /// Worth another try later: Apple unreachable, `429` or `5xx`.
        case retry(String)
        /// Refused for good.
        case refused(String)
    }

    private let transport: any FormPoster
    private let secret: AppleClientSecret
    private let tokenURL: URL
    private let revokeURL: URL
    private let migrationURL: URL?

    /// - Parameters: `ISSUER_APPLE_TOKEN_URL`, `ISSUER_APPLE_REVOKE_URL` and
    ///   `ISSUER_APPLE_MIGRATION_URL`, and the client secret signer.
    public init(transport: any FormPoster, secret: AppleClientSecret, tokenURL: URL, revokeURL: URL, migrationURL: URL? = nil) {
        self.transport = transport
        self.secret = secret
        self.tokenURL = tokenURL
        self.revokeURL = revokeURL
        self.migrationURL = migrationURL
    }

    /// Apple, "Transferring your apps and users to another team": an access token for
    /// `usermigrationinfo` (`client_credentials`, `scope=user.migration`) for `clientID`.
    public func migrationToken(clientID: String, timeout: Duration) async -> MigrationAnswer {
        await migrationCall(to: tokenURL, fields: [
            ("grant_type", "client_credentials"), ("scope", "user.migration"), ("client_id", clientID),
        ], clientID: clientID, headers: [], timeout: timeout)
    }

    /// `POST usermigrationinfo` with `fields` (`sub` and `target` on the sending side,
    /// `transfer_sub` on the receiving side), `client_id` and `client_secret`.
    public func migrationInfo(
        _ fields: [(String, String)], accessToken: String, clientID: String, timeout: Duration
    ) async -> MigrationAnswer {
        guard let migrationURL else { return .refused("ISSUER_APPLE_MIGRATION_URL is not configured") }
        return await migrationCall(
            to: migrationURL, fields: fields + [("client_id", clientID)], clientID: clientID,
            headers: [("Authorization", "Bearer \(accessToken)")], timeout: timeout)
    }

    private func migrationCall(
        to url: URL, fields: [(String, String)], clientID: String, headers: [(String, String)], timeout: Duration
    ) async -> MigrationAnswer {
        let answer: FormPostAnswer
        do {
            let signed = fields + [("client_secret", try secret.secret(clientID: clientID))]
            answer = try await transport.postForm(to: url, fields: signed, headers: headers, timeout: timeout)
        } catch {
            return .retry("\(error)")
        }
        if answer.status == 429 || answer.status >= 500 { return .retry("HTTP \(answer.status)") }
        guard answer.status == 200, let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else {
            return .refused("HTTP \(answer.status)\(answer.oauthError.map { " \($0)" } ?? "")")
        }
        var members: [String: String] = [:]
        for (name, value) in object {
            if let text = value as? String { members[name] = text } else if let flag = value as? Bool { members[name] = flag ? "true" : "false" }
        }
        return .answered(members)
    }

    /// Redeems Apple's one-time `code` (grant `authorization_code`). Web codes name the
    /// `redirect_uri` they were issued for; native codes none.
    public func redeem(code: String, clientID: String, redirectURI: String?, timeout: Duration) async -> Redemption {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("client_id", clientID)]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        let answer: FormPostAnswer
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
        let answer: FormPostAnswer
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

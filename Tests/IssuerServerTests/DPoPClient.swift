import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IssuerCore
import JOSE
import TestSupport

/// Token requests that carry a `DPoP` proof (RFC 9449 §4; docs/reference.md, "DPoP"), and what a
/// bound access token says.
enum DPoPClient {
    static let header = HTTPField.Name("DPoP")!

    /// `ISSUER_URL` and `path`: the `htu` of a proof for that endpoint.
    static func url(_ fixture: IssuerTestFixture, _ path: String) -> String {
        let base = fixture.configuration.issuerURL.absoluteString
        return (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
    }

    static let nonceHeader = HTTPField.Name("DPoP-Nonce")!

    /// A proof by `key` for a POST to `path`, issued now on the fixture's clock, carrying `nonce` if given.
    static func proof(
        _ key: DPoPKey, _ fixture: IssuerTestFixture, _ path: String = "/oauth2/token", jti: String = UUID().uuidString,
        nonce: String? = nil
    ) throws -> String {
        try key.proof(
            url: url(fixture, path), issuedAt: fixture.clock.now, jti: jti, extraClaims: nonce.map { #","nonce":""# + $0 + #"""# } ?? "")
    }

    /// POSTs a form with `proof` (if any) as the `DPoP` header.
    static func postForm(_ client: some TestClientProtocol, _ uri: String, _ fields: [(String, String)], proof: String?) async throws -> TestResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let proof { headers[header] = proof }
        return try await client.executeRequest(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    /// The native Apple sign-in of `subject` with `proof`.
    static func signIn(
        _ client: some TestClientProtocol, _ fixture: IssuerTestFixture, proof: String?, subject: String = "dpop.user"
    ) async throws -> TestResponse {
        try await postForm(client, "/auth/apple/exchange", [("id_token", try fixture.apple.identityToken(subject: subject))], proof: proof)
    }

    /// A refresh of `token` with `proof`.
    static func refresh(_ client: some TestClientProtocol, _ token: String, proof: String?) async throws -> TestResponse {
        try await postForm(
            client, "/oauth2/token", [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "clanboards-mobile")],
            proof: proof)
    }

    /// Whether the refresh token `token` is spent and its session revoked.
    static func tokenState(_ fixture: IssuerTestFixture, _ token: String) async throws -> (spent: Bool, revoked: Bool) {
        let row = try await fixture.pool.query("""
            SELECT r.spent_at IS NOT NULL AS spent, s.revoked_at IS NOT NULL AS revoked
            FROM refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE r.token_hash = $1
            """, [RefreshToken(value: token).hash]).rows[0]
        return (try row.decode(column: "spent"), try row.decode(column: "revoked"))
    }

    /// The `cnf.jkt` of an access token (its signature is the access-token tests' business).
    static func confirmedKey(_ accessToken: Any?) -> String? {
        guard let token = accessToken as? String else { return nil }
        let parts = token.split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
              let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
              let cnf = claims["cnf"] as? [String: Any]
        else { return nil }
        return cnf["jkt"] as? String
    }
}

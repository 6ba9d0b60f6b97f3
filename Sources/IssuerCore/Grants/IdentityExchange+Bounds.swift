extension IdentityExchange.Request {
    /// docs/reference.md, "Native sign-in": a nonce of at most 256 bytes.
    public static let maximumNonceLength = 256
    /// docs/reference.md, "Native sign-in": each part of a name at most 256 bytes.
    public static let maximumNamePartLength = 256

    /// docs/reference.md, "Native sign-in" and "Faults and bad input": what the client sends is bounded before anything is verified or stored,
    /// so that nothing client-supplied can grow a token past the 16 KiB the issuer itself accepts,
    /// nor put control characters into the database, a log line or an operator's terminal.
    /// Names and nonces out of bounds are `invalid_request`; a user agent is cut and escaped.
    func bounded() throws(OAuthError) -> Self {
        var request = self
        // docs/reference.md, "Facebook": an access token is bounded before the provider is asked
        // about it (an ID token is bounded by its verifier).
        if case .accessToken(let token) = credential {
            guard !token.isEmpty, token.utf8.count <= IdentityTokenVerifier.maximumTokenLength,
                  token.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw .invalidRequest("access_token must be printable ASCII of at most \(IdentityTokenVerifier.maximumTokenLength) bytes.")
            }
        }
        if let nonce {
            guard nonce.utf8.count <= Self.maximumNonceLength, !nonce.containsControlCharacters else {
                throw .invalidRequest("The nonce must be at most \(Self.maximumNonceLength) bytes without control characters.")
            }
        }
        if let authorizationCode {
            guard !authorizationCode.isEmpty, authorizationCode.utf8.count <= AppleTokenCustody.maximumCodeLength,
                  !authorizationCode.containsControlCharacters
            else {
                throw .invalidRequest(
                    "authorization_code must be at most \(AppleTokenCustody.maximumCodeLength) bytes without control characters.")
            }
        }
        for (field, part) in [("given_name", givenName), ("family_name", familyName)] {
            guard let part else { continue }
            guard part.utf8.count <= Self.maximumNamePartLength, !part.containsControlCharacters else {
                throw .invalidRequest(
                    "name.\(field) must be a string of at most \(Self.maximumNamePartLength) bytes without control characters.")
            }
        }
        request.userAgent = UserAgent.bounded(userAgent)
        return request
    }
}

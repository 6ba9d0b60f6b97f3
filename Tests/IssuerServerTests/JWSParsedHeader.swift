import JOSE

/// Reads a compact JWS header's `kid` without verifying anything (test inspection only).
enum JWSParsedHeader {
    static func kid(of token: String) throws -> String? {
        try JWS.parse(token, allowedAlgorithms: [.rs256]).header.kid
    }
}

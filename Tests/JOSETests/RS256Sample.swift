import Foundation
import JOSE
import Testing
import TestSupport

/// An RS256 JWS signed with `TestRSAKeys.a` under one `kid`, and a verification that must refuse
/// a token and says whether it got as far as looking the key up (RFC 7515): what the JOSE suites
/// sign and check tokens with.
enum RS256Sample {
    static let kid = "test-key"
    static let claims = #"{"iss":"https://issuer.example","sub":"alice","aud":"client"}"#

    /// Resolves only `kid`, counting lookups so tests can prove the key closure was (or was not) consulted.
    final class KeyLookup {
        var calls = 0
        let key: RSAPublicKey

        init(key: RSAPublicKey = TestRSAKeys.a.publicKey) {
            self.key = key
        }

        func callAsFunction(_ header: JWSHeader) -> RSAPublicKey? {
            calls += 1
            return header.kid == RS256Sample.kid ? key : nil
        }
    }

    static func validToken(payload: String = claims, key: RSAPrivateKey = TestRSAKeys.a) throws -> String {
        try JWS.sign(payload: Data(payload.utf8), header: JWSHeader(kid: kid), key: key)
    }

    /// Verifies and asserts the refusal reason plus whether the key closure ran.
    static func expectRefused(
        _ token: String, with expected: JOSEError, keyLookedUp: Bool, maxLength: Int = 16 * 1024,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let lookup = KeyLookup()
        #expect(throws: expected, sourceLocation: sourceLocation) {
            try JWS.verify(token, allowedAlgorithms: [.rs256], maxLength: maxLength, key: lookup.callAsFunction)
        }
        #expect((lookup.calls > 0) == keyLookedUp, "key lookup calls: \(lookup.calls)", sourceLocation: sourceLocation)
    }
}

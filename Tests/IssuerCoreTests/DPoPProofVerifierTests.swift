import Crypto
import Foundation
import IssuerCore
import JOSE
import Testing
import TestSupport

/// RFC 9449 §4.3's checks of a proof, one refusal reason each (docs/reference.md, "DPoP").
@Suite struct DPoPProofVerifierTests {
    let clock = ManualClock()
    let key = DPoPKey()
    let url = "https://issuer.example/oauth2/token"
    var verifier: DPoPProofVerifier { DPoPProofVerifier(clock: clock) }

    private func refusal(_ proof: String, method: String = "POST", url: String? = nil) -> OAuthError? {
        do {
            _ = try verifier.verify(proof, method: method, url: url ?? self.url)
            return nil
        } catch {
            return error
        }
    }

    @Test func acceptsAnES256ProofAndAnswersTheKeysThumbprint() throws {
        let proof = try key.proof(url: url + "?ignored=1#and-this", issuedAt: clock.now, jti: "j-1", extraClaims: #","ath":"abc","nonce":"n1""#)
        let verified = try verifier.verify(proof, method: "POST", url: url)
        #expect(verified.thumbprint == key.thumbprint)
        #expect(verified.jwtID == "j-1")
        #expect(verified.accessTokenHash == "abc")
        #expect(verified.nonce == "n1")
        #expect(verified.proofHash == Array(SHA256.hash(data: Data(proof.utf8))))
    }

    @Test func acceptsAnRS256Proof() throws {
        let rsa = TestRSAKeys.a
        let jwk = rsa.publicKey.jwk(kid: nil)
        let header = #"{"typ":"dpop+jwt","alg":"RS256","jwk":{"kty":"RSA","n":""# + (jwk.n ?? "") + #"","e":""# + (jwk.e ?? "") + #""}}"#
        let claims = #"{"htm":"POST","htu":""# + url + #"","iat":"# + "\(Int(clock.now.timeIntervalSince1970))" + #","jti":"r-1"}"#
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let proof = input + "." + Base64URL.encode(try rsa.sign(Array(input.utf8)))
        #expect(try verifier.verify(proof, method: "POST", url: url).thumbprint == rsa.publicKey.thumbprint)
    }

    @Test func refusesAnotherType() throws {
        #expect(refusal(try key.proof(url: url, issuedAt: clock.now, typ: "JWT"))?.code == .invalidDPoPProof)
    }

    @Test func refusesNoneAndHMAC() throws {
        for alg in ["none", "HS256", "ES384"] {
            #expect(refusal(try key.proof(url: url, issuedAt: clock.now, alg: alg))?.code == .invalidDPoPProof)
        }
    }

    @Test func refusesAJWKWithAPrivateMember() throws {
        let d = Base64URL.encode(key.privateKey.rawRepresentation)
        let withPrivate = String(key.jwkJSON.dropLast()) + #","d":""# + d + #""}"#
        let error = refusal(try key.proof(url: url, issuedAt: clock.now, jwk: withPrivate))
        #expect(error?.code == .invalidDPoPProof)
        #expect(error?.description.contains("private") == true)
    }

    @Test func refusesAProofWithoutAJWK() throws {
        let proof = try DPoPKey.signed(
            header: #"{"typ":"dpop+jwt","alg":"ES256"}"#,
            claims: #"{"htm":"POST","htu":""# + url + #"","iat":"# + "\(Int(clock.now.timeIntervalSince1970))" + #","jti":"x"}"#,
            key: key.privateKey)
        #expect(refusal(proof)?.code == .invalidDPoPProof)
    }

    @Test func refusesASignatureByAnotherKey() throws {
        let error = refusal(try key.proof(url: url, issuedAt: clock.now, signer: P256.Signing.PrivateKey()))
        #expect(error?.code == .invalidDPoPProof)
        #expect(error?.description.contains("signature") == true)
    }

    /// One verifier remembers the headers it verified (`DPoPKeyCache`): a header seen before skips
    /// only its own decoding, never the signature or the claims.
    @Test func aHeaderSeenBeforeStillNeedsItsSignatureAndClaims() throws {
        let verifier = DPoPProofVerifier(clock: clock)
        func refused(_ proof: String, method: String = "POST") -> OAuthError? {
            do {
                _ = try verifier.verify(proof, method: method, url: url)
                return nil
            } catch {
                return error
            }
        }
        // A forgery with the device's header, before and after the device's own proof.
        let forged = try key.proof(url: url, issuedAt: clock.now, jti: "f-1", signer: P256.Signing.PrivateKey())
        #expect(refused(forged)?.description.contains("signature") == true)
        let first = try key.proof(url: url, issuedAt: clock.now, jti: "j-1")
        #expect(try verifier.verify(first, method: "POST", url: url).thumbprint == key.thumbprint)
        let header = { (proof: String) in proof.prefix { $0 != "." } }
        #expect(header(forged) == header(first), "the forgery carries the device's header")
        #expect(refused(forged)?.description.contains("signature") == true)
        #expect(refused(try key.proof(method: "GET", url: url, issuedAt: clock.now, jti: "j-2"))?.description.contains("htm") == true)
        #expect(refused(try key.proof(url: url, issuedAt: clock.now.addingTimeInterval(-120), jti: "j-3"))?.description.contains("iat") == true)
        let again = try verifier.verify(try key.proof(url: url, issuedAt: clock.now, jti: "j-4"), method: "POST", url: url)
        #expect(again.thumbprint == key.thumbprint && again.jwtID == "j-4")
        // Another device's header is its own entry, with its own thumbprint.
        let other = DPoPKey()
        #expect(try verifier.verify(try other.proof(url: url, issuedAt: clock.now, jti: "o-1"), method: "POST", url: url).thumbprint == other.thumbprint)
    }

    @Test func refusesAnotherMethodOrURL() throws {
        #expect(refusal(try key.proof(method: "GET", url: url, issuedAt: clock.now))?.description.contains("htm") == true)
        #expect(refusal(try key.proof(url: "https://issuer.example/oauth2/revoke", issuedAt: clock.now))?.description.contains("htu") == true)
        #expect(refusal(try key.proof(url: "http://issuer.example/oauth2/token", issuedAt: clock.now))?.description.contains("htu") == true)
    }

    @Test("htu is compared byte for byte: a canonically equivalent spelling is another URL")
    func comparesTheURLsBytes() throws {
        let served = "https://issuer.example/K/token"
        #expect("\u{212A}" == "K", "Swift's == takes the KELVIN SIGN for a K")
        #expect(refusal(try key.proof(url: served, issuedAt: clock.now), url: served) == nil)
        let kelvin = try key.proof(url: "https://issuer.example/\u{212A}/token", issuedAt: clock.now)
        #expect(refusal(kelvin, url: served)?.description.contains("htu") == true)
        // A `?` ends the path whatever follows it, as RFC 3986 reads it.
        #expect(refusal(try key.proof(url: served + "?\u{301}x", issuedAt: clock.now), url: served) == nil)
    }

    @Test func refusesAnIssuedAtOutsideSixtySeconds() throws {
        #expect(refusal(try key.proof(url: url, issuedAt: clock.now.addingTimeInterval(-61)))?.description.contains("iat") == true)
        #expect(refusal(try key.proof(url: url, issuedAt: clock.now.addingTimeInterval(61)))?.description.contains("iat") == true)
        #expect(refusal(try key.proof(url: url, issuedAt: clock.now.addingTimeInterval(-60))) == nil)
    }

    @Test func refusesAJWTIDLongerThan256BytesOrEmpty() throws {
        #expect(refusal(try key.proof(url: url, issuedAt: clock.now, jti: String(repeating: "a", count: 257)))?.code == .invalidDPoPProof)
        #expect(refusal(try key.proof(url: url, issuedAt: clock.now, jti: "")) != nil)
        #expect(refusal(try key.proof(url: url, issuedAt: clock.now, jti: String(repeating: "a", count: 256))) == nil)
    }

    @Test func refusesMissingClaimsAndGarbage() throws {
        let noJTI = try DPoPKey.signed(
            header: #"{"typ":"dpop+jwt","alg":"ES256","jwk":"# + key.jwkJSON + "}",
            claims: #"{"htm":"POST","htu":""# + url + #"","iat":"# + "\(Int(clock.now.timeIntervalSince1970))" + "}",
            key: key.privateKey)
        #expect(refusal(noJTI)?.code == .invalidDPoPProof)
        #expect(refusal("not.a.jwt")?.code == .invalidDPoPProof)
        #expect(refusal("")?.statusCode == 400)
    }
}

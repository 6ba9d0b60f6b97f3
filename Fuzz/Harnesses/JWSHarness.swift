import Crypto
import Foundation
import JOSE

/// A compact JWS (RFC 7515 §7.1) as a client, Apple or another OpenID provider would send it,
/// RS256 or ES256: every step of verification a forged token can reach, and what parses re-signed
/// to reach the checks behind the signature, with swift-crypto signing ES256. Fuzzed by Fuzz/JWS,
/// replayed on its corpus by Tests/FuzzCorpusTests.
public enum JWSHarness {
    /// Generated once; what parses is re-signed with it to reach the checks behind the signature.
    private static let key = try! RSAPrivateKey.generate(bits: 2048)
    /// The same for ES256 (RFC 7518 §3.4), signed by swift-crypto and verified by JOSE.
    private static let ecKey = P256.Signing.PrivateKey()
    /// Kept as the struct and wrapped per use: a stored `JWSVerificationKey` keeps its case in the spare bits of a
    /// pointer, which LeakSanitizer then cannot follow, and it reports the key as leaked.
    private static let ecPublicKey: P256PublicKey = {
        let point = ecKey.publicKey.rawRepresentation
        let jwk = JWK(kty: "EC", crv: "P-256", x: Base64URL.encode(point.prefix(32)), y: Base64URL.encode(point.suffix(32)))
        return try! P256PublicKey(jwk: jwk)
    }()

    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        // Every step of verification that a forged token can reach, with either kind of key.
        _ = try? JWS.verify(text, allowedAlgorithms: [.rs256], key: { _ in key.publicKey })
        _ = try? JWS.parse(text, allowedAlgorithms: [.rs256, .es256]).verified(with: .p256(ecPublicKey))
        _ = try? JWS.parse(text, allowedAlgorithms: [.rs256, .es256]).verified(with: .rsa(key.publicKey))
        guard let parsed = try? JWS.parse(text, allowedAlgorithms: [.rs256, .es256]) else {
            precondition((try? JWS.parse(text, allowedAlgorithms: [.rs256])) == nil, "a narrower allow-list admitted more")
            return
        }
        guard let algorithm = parsed.header.algorithm, parsed.header.crit == nil else {
            preconditionFailure("parse let through \(parsed.header)")
        }
        // The allow-list decides: each algorithm parses exactly when it is allowed.
        precondition((try? JWS.parse(text, allowedAlgorithms: [algorithm])) != nil, "\(algorithm) refused when allowed alone")
        for other in JWSAlgorithm.allCases where other != algorithm {
            precondition((try? JWS.parse(text, allowedAlgorithms: [other])) == nil, "\(algorithm) admitted by [\(other)]")
        }
        // Strict base64url: each segment is the one canonical encoding of its bytes.
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        precondition(segments.count == 3, "parsed \(segments.count) segments")
        for segment in segments {
            guard let bytes = Base64URL.decode(segment) else { preconditionFailure("parsed an undecodable segment") }
            precondition(Base64URL.encode(bytes) == segment, "segment \(segment) is not canonical")
        }
        guard let payload = Base64URL.decode(segments[1]) else { preconditionFailure("parsed an undecodable payload") }
        switch algorithm {
        case .rs256:
            // Signing what parsed and verifying it again gives back the same header and payload.
            guard let signed = try? JWS.sign(payload: payload, header: parsed.header, key: key)
            else { preconditionFailure("a parsed header cannot be signed") }
            expectVerified(
                { try JWS.verify(signed, allowedAlgorithms: [.rs256], maxLength: .max, key: { _ in key.publicKey }) },
                header: parsed.header, payload: payload)
            // An RS256 header never meets an EC key (RFC 8725 §3.1).
            expectRefused(try JWS.parse(signed, allowedAlgorithms: [.rs256, .es256], maxLength: .max).verified(with: .p256(ecPublicKey)))
        case .es256:
            // JWS.sign is RS256 only: the signing input as it came, signed by swift-crypto (raw R || S).
            let signingInput = String(segments[0]) + "." + segments[1]
            guard let signature = try? ecKey.signature(for: Data(signingInput.utf8)).rawRepresentation
            else { preconditionFailure("swift-crypto cannot sign") }
            let signed = signingInput + "." + Base64URL.encode(signature)
            guard let again = try? JWS.parse(signed, allowedAlgorithms: [.es256], maxLength: .max)
            else { preconditionFailure("a re-signed ES256 token does not parse") }
            expectVerified({ try again.verified(with: .p256(ecPublicKey)) }, header: parsed.header, payload: payload)
            // An ES256 header never meets an RSA key, through either RSA entry point.
            expectRefused(try again.verified(with: .rsa(key.publicKey)))
            expectRefused(try again.verified(with: key.publicKey))
            expectRefused(try JWS.verify(signed, allowedAlgorithms: [.rs256, .es256], maxLength: .max, key: { _ in key.publicKey }))
        }
    }

    /// The re-signed token verifies with the parsed header and payload, unless the payload is not a JSON object:
    /// that is refused after the signature, as RFC 7519 §7.2 says.
    private static func expectVerified(_ verify: () throws -> JWSVerified, header: JWSHeader, payload: Data) {
        do {
            let verified = try verify()
            precondition(verified.header == header && verified.payload == payload, "sign/verify round trip")
        } catch JOSEError.malformed {
        } catch {
            preconditionFailure("re-signed token refused: \(error)")
        }
    }

    /// A key of another algorithm than the header's is refused for that reason, before its signature is looked at.
    private static func expectRefused(_ verify: @autoclosure () throws -> JWSVerified) {
        do {
            _ = try verify()
            preconditionFailure("verified with a key of another algorithm")
        } catch JOSEError.unsupportedAlgorithm {
        } catch {
            preconditionFailure("refused for \(error), not the key's algorithm")
        }
    }
}

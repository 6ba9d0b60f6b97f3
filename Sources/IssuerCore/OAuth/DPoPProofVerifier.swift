import Crypto
import Foundation
import JOSE

/// Checks a `DPoP` header (RFC 9449 §4.3) against the request it came with: everything about a
/// proof that needs no storage. docs/reference.md, "DPoP".
///
/// Every refusal is `400 invalid_dpop_proof`, decided before any grant looks at the request, so a
/// bad proof changes nothing (no session, no rotation, no theft inferred).
public struct DPoPProofVerifier: Sendable {
    /// The `typ` of a proof (RFC 9449 §4.2).
    public static let type = "dpop+jwt"
    /// The signature algorithms accepted (and listed in discovery as
    /// `dpop_signing_alg_values_supported`): asymmetric only, never `none` or HMAC (RFC 9449 §4.3).
    public static let algorithms: [JWSAlgorithm] = [.es256, .rs256]
    private static let allowed = Set(algorithms)
    /// How far `iat` may be from now, either way (RFC 9449 §11.1 leaves the window to the server).
    public static let window: TimeInterval = 60
    /// The longest `jti` kept in the replay memory, in bytes.
    public static let maxJWTIDLength = 256
    /// A proof is a small JWT; an RSA key of the largest size JOSE accepts fits with room to spare.
    static let maxLength = 8 * 1024

    /// JWK members that only a private key has (RFC 7518 §6.2.2, §6.3.2) or a symmetric one (§6.4.1):
    /// a proof carrying any of them is refused rather than the member ignored (RFC 9449 §4.3 check 7).
    static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    private let clock: any WallClock
    /// The headers verified before, each with its key and thumbprint.
    private let keys = DPoPKeyCache()

    /// - Parameter clock: the source of now for the `iat` window.
    public init(clock: any WallClock) {
        self.clock = clock
    }

    /// Verifies `proof` for a request of `method` to `url` (`ISSUER_URL` and the path, no query).
    /// - Throws: `invalid_dpop_proof` naming the first check it fails.
    public func verify(_ proof: String, method: String, url: String) throws(OAuthError) -> DPoPProof {
        let parsed: JWSParsed
        let key: JWSVerificationKey
        // Bytes, as JWS.parse splits the proof, not Characters (a grapheme walk costs microseconds).
        var known = keys.entry(forSegment: proof[..<(proof.utf8.firstIndex(of: UInt8(ascii: ".")) ?? proof.endIndex)])
        if let entry = known, let again = try? JWS.parse(proof, known: entry.header, maxLength: Self.maxLength) {
            // A header that passed every check below before: only the signature and claims are new.
            parsed = again
            key = entry.key
        } else {
            known = nil
            do {
                parsed = try JWS.parse(proof, allowedAlgorithms: Self.allowed, maxLength: Self.maxLength)
            } catch JOSEError.unsupportedAlgorithm {
                throw .invalidDPoPProof("The DPoP proof's alg must be ES256 or RS256.")
            } catch {
                throw .invalidDPoPProof("The DPoP proof is not a well-formed JWT.", debug: "\(error)")
            }
            guard parsed.header.typ == Self.type else {
                throw .invalidDPoPProof("The DPoP proof's typ must be dpop+jwt.")
            }
            key = try Self.publicKey(parsed.headerJSON)
        }
        let claims: DPoPProofClaims
        do {
            claims = try parsed.verifiedClaims(with: key, reading: DPoPProofClaims.read)
        } catch let error as JOSEError {
            throw .invalidDPoPProof("The DPoP proof's signature does not verify with its jwk.", debug: "\(error)")
        } catch {
            throw .invalidDPoPProof("The DPoP proof lacks htm, htu, iat or jti, or one has the wrong type.", debug: "\(error)")
        }
        let thumbprint = known?.thumbprint ?? key.thumbprint
        guard claims.htm == method else {
            throw .invalidDPoPProof("The DPoP proof's htm does not match the request method.")
        }
        guard Self.withoutQuery(claims.htu).elementsEqual(url.utf8) else {
            throw .invalidDPoPProof("The DPoP proof's htu does not match the request URL.")
        }
        let issuedAt = Date(timeIntervalSince1970: claims.iat)
        guard abs(issuedAt.timeIntervalSince(clock.now)) <= Self.window else {
            throw .invalidDPoPProof("The DPoP proof's iat is not within 60 seconds of now.")
        }
        guard !claims.jti.isEmpty, claims.jti.utf8.count <= Self.maxJWTIDLength else {
            throw .invalidDPoPProof("The DPoP proof's jti must have 1 to 256 bytes.")
        }
        if known == nil {
            // Kept only now that every check passed.
            keys.insert(DPoPKeyCache.Entry(header: parsed.knownHeader, key: key, thumbprint: thumbprint))
        }
        var text = proof
        let proofHash = text.withUTF8 { Array(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
        return DPoPProof(
            thumbprint: thumbprint, jwtID: claims.jti, issuedAt: issuedAt, accessTokenHash: claims.ath,
            nonce: claims.nonce, proofHash: proofHash)
    }

    /// The header's `jwk` as a verification key: a public EC P-256 or RSA key, nothing private.
    private static func publicKey(_ headerJSON: Data) throws(OAuthError) -> JWSVerificationKey {
        // The header JWS.parse already decoded, read once more for the one member it does not model.
        guard let member = (try? JSONDecoder().decode(ProofHeader.self, from: headerJSON))?.jwk else {
            throw .invalidDPoPProof("The DPoP proof's header carries no jwk object.")
        }
        guard privateMembers.isDisjoint(with: member.names) else {
            throw .invalidDPoPProof("The DPoP proof's jwk must be a public key: it carries a private member.")
        }
        do {
            guard let kty = member.strings["kty"] else { throw JOSEError.invalidKey }
            let jwk = JWK(
                kty: kty, n: member.strings["n"], e: member.strings["e"], crv: member.strings["crv"], x: member.strings["x"],
                y: member.strings["y"])
            switch jwk.kty {
            case "EC": return .p256(try P256PublicKey(jwk: jwk))
            case "RSA": return .rsa(try RSAPublicKey(jwk: jwk))
            default: throw JOSEError.invalidKey
            }
        } catch {
            throw .invalidDPoPProof("The DPoP proof's jwk is not a usable EC P-256 or RSA public key.", debug: "\(error)")
        }
    }

    /// RFC 9449 §4.3 check 9: `htu` is compared without its query and fragment, byte for byte
    /// (RFC 3986 §6.2.1), not as Swift compares strings, which would take a canonically
    /// equivalent spelling (a KELVIN SIGN for a `K`) for the same URL.
    static func withoutQuery(_ htu: String) -> Substring.UTF8View {
        let utf8 = htu.utf8
        return htu[..<(utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? htu.endIndex)].utf8
    }

    /// The one header member a proof adds to a JWS's (RFC 9449 §4.2); a `jwk` that is not an object is none.
    private struct ProofHeader: Decodable {
        var jwk: ProofKey?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            jwk = try? container.decodeIfPresent(ProofKey.self, forKey: .jwk)
        }

        private enum CodingKeys: String, CodingKey { case jwk }
    }

    /// A proof's `jwk` as its members' names (every one, to refuse private ones) and its string members: a
    /// member of another type is missing, so such a key is refused as unusable.
    private struct ProofKey: Decodable {
        var names: Set<String>
        var strings: [String: String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: MemberName.self)
            names = Set(container.allKeys.map(\.stringValue))
            strings = [:]
            for key in container.allKeys {
                if let value = try? container.decode(String.self, forKey: key) { strings[key.stringValue] = value }
            }
        }
    }

    private struct MemberName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

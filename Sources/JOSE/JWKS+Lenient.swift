import Foundation

extension JWKS {
    /// Decodes a JWK Set and returns its usable RS256 verification keys by `kid`.
    ///
    /// RFC 7517 §5 says implementations SHOULD ignore JWKs with unknown `kty` or missing required members, so one
    /// EC, `oct` or malformed member must not make the whole set unusable. Keys without a `kid` are skipped (they
    /// cannot be selected by the JWS `kid` header, RFC 7515 §4.1.4), and for a duplicated `kid` the first usable key
    /// wins (RFC 7517 §4.5 asks for distinct values). Throws only if the document is not a `{"keys": [...]}` object.
    public static func rsaVerificationKeys(fromJSON data: Data) throws -> [String: RSAPublicKey] {
        var result: [String: RSAPublicKey] = [:]
        for jwk in try lenientMembers(fromJSON: data) {
            guard let kid = jwk.kid, result[kid] == nil, let key = try? RSAPublicKey(jwk: jwk) else { continue }
            result[kid] = key
        }
        return result
    }

    /// Decodes a JWK Set and returns its usable verification keys by `kid`: RSA keys for RS256 and EC P-256 keys
    /// for ES256, each tied to its one algorithm (``JWSVerificationKey/algorithm``).
    ///
    /// The same leniency as ``rsaVerificationKeys(fromJSON:)``: members that are unusable here (another `kty` or
    /// curve, missing or malformed members, RFC 7517 §5) are skipped, as are keys without a `kid`, and for a
    /// duplicated `kid` the first usable key wins, whatever its type. A key whose `alg` (RFC 7517 §4.4) names
    /// another algorithm than its type's, or whose `use` is not `"sig"`, is skipped. Throws only if the document is
    /// not a `{"keys": [...]}` object.
    public static func verificationKeys(fromJSON data: Data) throws -> [String: JWSVerificationKey] {
        var result: [String: JWSVerificationKey] = [:]
        for jwk in try lenientMembers(fromJSON: data) {
            guard let kid = jwk.kid, result[kid] == nil, let key = verificationKey(jwk) else { continue }
            result[kid] = key
        }
        return result
    }

    /// The key a JWK describes, or nil when this module cannot verify with it.
    private static func verificationKey(_ jwk: JWK) -> JWSVerificationKey? {
        switch jwk.kty {
        case "RSA": (try? RSAPublicKey(jwk: jwk)).map(JWSVerificationKey.rsa)
        case "EC": (try? P256PublicKey(jwk: jwk)).map(JWSVerificationKey.p256)
        default: nil
        }
    }

    /// The members of a `{"keys": [...]}` document that decode as a ``JWK``, in order.
    private static func lenientMembers(fromJSON data: Data) throws -> [JWK] {
        do {
            return try JSONDecoder().decode(LenientSet.self, from: data).keys.compactMap { $0 }
        } catch {
            throw JOSEError.malformed
        }
    }

    private struct LenientSet: Decodable {
        let keys: [JWK?]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            var array = try container.nestedUnkeyedContainer(forKey: .keys)
            var keys: [JWK?] = []
            while !array.isAtEnd {
                // A member of the wrong shape decodes as nil instead of failing the whole set.
                keys.append((try? array.decode(LenientMember.self))?.jwk)
            }
            self.keys = keys
        }

        private enum CodingKeys: String, CodingKey {
            case keys
        }
    }

    /// Wraps a member so that a decoding failure still consumes it from the unkeyed container.
    private struct LenientMember: Decodable {
        let jwk: JWK?

        init(from decoder: any Decoder) throws {
            jwk = try? JWK(from: decoder)
        }
    }
}

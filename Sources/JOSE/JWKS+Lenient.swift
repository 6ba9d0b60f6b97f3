import Foundation

extension JWKS {
    /// Decodes a JWK Set and returns its usable RS256 verification keys by `kid`.
    ///
    /// RFC 7517 §5 says implementations SHOULD ignore JWKs with unknown `kty` or missing required members, so one
    /// EC, `oct` or malformed member must not make the whole set unusable. Keys without a `kid` are skipped (they
    /// cannot be selected by the JWS `kid` header, RFC 7515 §4.1.4), and for a duplicated `kid` the first usable key
    /// wins (RFC 7517 §4.5 asks for distinct values). Throws only if the document is not a `{"keys": [...]}` object.
    public static func rsaVerificationKeys(fromJSON data: Data) throws -> [String: RSAPublicKey] {
        let set: LenientSet
        do {
            set = try JSONDecoder().decode(LenientSet.self, from: data)
        } catch {
            throw JOSEError.malformed
        }
        var result: [String: RSAPublicKey] = [:]
        for case let jwk? in set.keys {
            guard let kid = jwk.kid, result[kid] == nil, let key = try? RSAPublicKey(jwk: jwk) else { continue }
            result[kid] = key
        }
        return result
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

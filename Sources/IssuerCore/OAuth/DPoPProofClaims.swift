import Foundation

/// The claims of a DPoP proof (RFC 9449 §4.2) this server reads.
package struct DPoPProofClaims: Decodable, Equatable, Sendable {
    package var htm: String
    package var htu: String
    package var iat: Double
    package var jti: String
    package var ath: String?
    package var nonce: String?

    /// Reads a verified proof's payload: the plain shape apps send (`PlainJSONObject`) directly,
    /// anything else (a `\u` escape, a fraction, a `null`) with JSONDecoder, which reads both the
    /// same way. Throws JSONDecoder's error for a payload that is not such claims.
    package static func read(_ payload: Data) throws -> DPoPProofClaims {
        if let object = PlainJSONObject(payload), let claims = DPoPProofClaims(object) { return claims }
        return try JSONDecoder().decode(DPoPProofClaims.self, from: payload)
    }

    /// Nil when a claim is missing or of another type than JSONDecoder would accept, so that
    /// JSONDecoder decides (and names) the refusal.
    init?(_ object: PlainJSONObject) {
        guard case .string(let htm)? = object["htm"], case .string(let htu)? = object["htu"],
            case .integer(let iat)? = object["iat"], case .string(let jti)? = object["jti"],
            let ath = Self.optionalString(object["ath"]), let nonce = Self.optionalString(object["nonce"])
        else { return nil }
        self.htm = htm
        self.htu = htu
        self.iat = Double(iat)
        self.jti = jti
        self.ath = ath
        self.nonce = nonce
    }

    /// A member that may be absent: `.some(nil)` when it is, nil when it is not a string.
    private static func optionalString(_ value: PlainJSONObject.Value?) -> String?? {
        switch value {
        case nil: .some(nil)
        case .string(let string)?: .some(string)
        case .integer?: nil
        }
    }
}

/// The JOSE header of a JWS (RFC 7515 §4), limited to the parameters this module acts on.
///
/// Other registered or private parameters are ignored when decoding, which RFC 7515 §4 permits; the one
/// exception is `crit` (§4.1.11), whose mere presence is recorded so that verification can refuse it.
public struct JWSHeader: Codable, Sendable, Equatable {
    /// The `alg` parameter (RFC 7515 §4.1.1), kept as a raw string because verification must see unknown values
    /// in order to refuse them.
    public var alg: String?
    /// The `typ` parameter (RFC 7515 §4.1.9), e.g. `"JWT"` (RFC 7519 §5.1).
    public var typ: String?
    /// The `kid` parameter (RFC 7515 §4.1.4) used to select the verification key.
    public var kid: String?
    /// The `crit` parameter (RFC 7515 §4.1.11). When present but not an array of strings it decodes as `[]`,
    /// so that a malformed `crit` is still seen (and refused) rather than silently dropped.
    public var crit: [String]?

    /// The header as ``JWS/sign(payload:header:key:)`` writes it: `alg`, `kid` and `typ`, sorted,
    /// those that are set (`crit` is never signed).
    public func encodedJSON() -> [UInt8] {
        var writer = JSONObjectWriter(capacity: 96)
        writer.string("alg", alg)
        writer.string("kid", kid)
        writer.string("typ", typ)
        return writer.finished()
    }

    /// Creates a header for signing; RS256 and `typ: "JWT"` are the defaults for OpenID Connect ID Tokens.
    public init(alg: JWSAlgorithm = .rs256, typ: String? = "JWT", kid: String? = nil) {
        self.alg = alg.rawValue
        self.typ = typ
        self.kid = kid
        self.crit = nil
    }

    /// The algorithm as a known ``JWSAlgorithm``, or `nil` when absent or not implemented (RFC 7515 §4.1.1).
    public var algorithm: JWSAlgorithm? {
        alg.flatMap(JWSAlgorithm.init(rawValue:))
    }

    /// Decodes a header object (RFC 7515 §4); wrong member types are errors, except for `crit` (see ``crit``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alg = try container.decodeIfPresent(String.self, forKey: .alg)
        typ = try container.decodeIfPresent(String.self, forKey: .typ)
        kid = try container.decodeIfPresent(String.self, forKey: .kid)
        crit = container.contains(.crit) ? ((try? container.decode([String].self, forKey: .crit)) ?? []) : nil
    }

    private enum CodingKeys: String, CodingKey {
        case alg, typ, kid, crit
    }
}

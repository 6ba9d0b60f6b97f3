import Foundation

/// JWS Compact Serialization (RFC 7515 §7.1): signing with RS256 (RFC 7518 §3.3), verifying RS256 and ES256
/// (RFC 7518 §3.4).
public enum JWS {
    /// Produces `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)` (RFC 7515 §7.1, §5.1).
    ///
    /// `payload` is the already-serialized JSON (e.g. JWT claims) so callers control their encoding once. The header
    /// must name RS256 and carry no `crit`, because this module's own verifier would refuse anything else.
    public static func sign(payload: some DataProtocol, header: JWSHeader, key: RSAPrivateKey) throws -> String {
        guard header.algorithm == .rs256 else { throw JOSEError.unsupportedAlgorithm }
        guard header.crit == nil else { throw JOSEError.criticalHeader }
        var token = Base64URL.encode(header.encodedJSON())
        token += "."
        token += Base64URL.encode(payload)
        // The signing input is the ASCII of the first two segments (RFC 7515 §5.1 step 5).
        let signature = try key.sign(Array(token.utf8))
        token += "."
        token += Base64URL.encode(signature)
        return token
    }

    /// Validates a compact JWS (RFC 7515 §5.2) and returns its header and payload.
    ///
    /// Checks run cheapest and least-trusting first: length bound; exactly three strict base64url segments with
    /// non-empty header and payload (§7.1); header is a JSON object (§5.2 steps 2–4); `alg` is allowed (§4.1.1, and
    /// RFC 8725 §3.1 — before any key lookup, so `none`/HMAC confusion never reaches key material); no `crit`
    /// (§4.1.11); `key` lookup (nil means unknown key); `alg` is RS256, the key's algorithm; signature (§5.2 step 8);
    /// payload is a JSON object. The key is RSA, so ES256 tokens go through
    /// ``parse(_:allowedAlgorithms:maxLength:)`` and ``JWSParsed/verified(with:)`` with a ``JWSVerificationKey``.
    public static func verify(
        _ token: some StringProtocol,
        allowedAlgorithms: Set<JWSAlgorithm>,
        maxLength: Int = 16 * 1024,
        key: (JWSHeader) throws -> RSAPublicKey?
    ) throws -> JWSVerified {
        let parsed = try parse(token, allowedAlgorithms: allowedAlgorithms, maxLength: maxLength)
        guard let publicKey = try key(parsed.header) else { throw JOSEError.unknownKey }
        return try parsed.verified(with: publicKey)
    }

    /// The steps of ``verify(_:allowedAlgorithms:maxLength:key:)`` that come before the key: for callers whose key
    /// lookup is asynchronous (a remote JWKS). The result is untrusted until ``JWSParsed/verified(with:)``.
    public static func parse(
        _ token: some StringProtocol,
        allowedAlgorithms: Set<JWSAlgorithm>,
        maxLength: Int = 16 * 1024
    ) throws -> JWSParsed {
        let bytes = token.utf8
        guard bytes.count <= maxLength else { throw JOSEError.tooLarge }
        let utf8 = Array(bytes)

        let segments = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty,
            let headerJSON = Base64URL.decode(utf8: segments[0]),
            let payload = Base64URL.decode(utf8: segments[1]),
            let signature = Base64URL.decode(utf8: segments[2])
        else { throw JOSEError.malformed }

        // RFC 7515 §4: header parameter names are unique; a decoder would keep one of two.
        guard !JSONMemberNames.hasDuplicates(headerJSON) else { throw JOSEError.malformed }
        let header: JWSHeader
        do {
            header = try JSONDecoder().decode(JWSHeader.self, from: headerJSON)
        } catch {
            throw JOSEError.malformed
        }
        guard let algorithm = header.algorithm, allowedAlgorithms.contains(algorithm) else {
            throw JOSEError.unsupportedAlgorithm
        }
        guard header.crit == nil else { throw JOSEError.criticalHeader }
        return JWSParsed(
            header: header, headerJSON: headerJSON, payload: payload, signature: signature,
            signingInput: Array(utf8[..<segments[1].endIndex]), headerSegment: Array(segments[0]))
    }

    /// ``parse(_:allowedAlgorithms:maxLength:)`` for a token whose header segment is byte for byte one that
    /// was parsed and checked before (`known`): the header is not decoded again. A sender that keeps one key
    /// sends one header with every token (a DPoP proof's, RFC 9449 §4.2), and its decoding is most of a
    /// parse. A token with any other header segment is ``JOSEError/malformed``: the caller parses it afresh.
    public static func parse(_ token: some StringProtocol, known: JWSKnownHeader, maxLength: Int = 16 * 1024) throws -> JWSParsed {
        let bytes = token.utf8
        guard bytes.count <= maxLength else { throw JOSEError.tooLarge }
        let utf8 = Array(bytes)
        let segments = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3, segments[0].elementsEqual(known.segment), !segments[1].isEmpty,
            let payload = Base64URL.decode(utf8: segments[1]),
            let signature = Base64URL.decode(utf8: segments[2])
        else { throw JOSEError.malformed }
        return JWSParsed(
            header: known.header, headerJSON: known.headerJSON, payload: payload, signature: signature,
            signingInput: Array(utf8[..<segments[1].endIndex]), headerSegment: known.segment)
    }
}

/// A header segment that ``JWS/parse(_:allowedAlgorithms:maxLength:)`` decoded and checked, kept to parse
/// later tokens that carry the same segment without decoding it again (``JWS/parse(_:known:maxLength:)``).
/// Only a parse can make one, so it always holds what its segment says.
public struct JWSKnownHeader: Sendable {
    /// The base64url header segment, as it came.
    public let segment: [UInt8]
    public let header: JWSHeader
    public let headerJSON: Data
}

/// A compact JWS whose shape, `alg` and `crit` were checked but whose signature was not (RFC 7515 §5.2 up to
/// step 7). Nothing in it may be trusted before ``verified(with:)`` succeeds.
public struct JWSParsed: Sendable {
    /// The decoded JOSE header (untrusted).
    public let header: JWSHeader
    /// The header's JSON as it came (untrusted), for a caller that reads a member this module does not model,
    /// such as a DPoP proof's `jwk` (RFC 9449 §4.2), without decoding the segment a second time.
    public let headerJSON: Data
    let payload: Data
    let signature: Data
    let signingInput: [UInt8]
    let headerSegment: [UInt8]

    /// Its header segment with what was decoded of it, to parse later tokens with the same header
    /// (``JWS/parse(_:known:maxLength:)``).
    public var knownHeader: JWSKnownHeader {
        JWSKnownHeader(segment: headerSegment, header: header, headerJSON: headerJSON)
    }

    /// RFC 7515 §5.2 step 8 with an RSA key: the same as verifying with ``JWSVerificationKey/rsa(_:)``, so a header
    /// that names another algorithm than RS256 is refused.
    public func verified(with key: RSAPublicKey) throws -> JWSVerified {
        try verified(with: .rsa(key))
    }

    /// RFC 7515 §5.2 step 8: checks that the header's `alg` is the key's algorithm, then the signature with `key`,
    /// then that the payload is a JSON object.
    ///
    /// The `alg` check comes first and throws ``JOSEError/unsupportedAlgorithm``: a key verifies one algorithm only,
    /// whatever the caller's allow-list admitted, so an RS256 header never meets an EC key nor ES256 an RSA key
    /// (RFC 8725 §3.1).
    public func verified(with key: JWSVerificationKey) throws -> JWSVerified {
        guard header.algorithm == key.algorithm else { throw JOSEError.unsupportedAlgorithm }
        guard key.verify(signature: signature, message: signingInput) else { throw JOSEError.badSignature }
        guard (try? JSONDecoder().decode(JSONObjectProbe.self, from: payload)) != nil else {
            throw JOSEError.malformed
        }
        return JWSVerified(header: header, payload: payload)
    }

    /// ``verified(with:)`` for a caller that reads the payload into claims of its own (a DPoP proof's,
    /// read without JSONDecoder when they are plain): the payload is read once, by `read`, instead of once
    /// to check that it is an object and again for the claims. `read` must succeed for a JSON object only,
    /// so that the object check still holds. Throws ``JOSEError/unsupportedAlgorithm`` or
    /// ``JOSEError/badSignature`` before `read` is called, and `read`'s error for a payload that is not
    /// such claims.
    public func verifiedClaims<Claims>(with key: JWSVerificationKey, reading read: (Data) throws -> Claims) throws -> Claims {
        guard header.algorithm == key.algorithm else { throw JOSEError.unsupportedAlgorithm }
        guard key.verify(signature: signature, message: signingInput) else { throw JOSEError.badSignature }
        return try read(payload)
    }
}

/// Succeeds only for a JSON object, which is what RFC 7519 §7.2 step 10 requires of a JWT Claims Set.
private struct JSONObjectProbe: Decodable {
    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyKey.self)
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

import Foundation

/// The claims of a provider's ID token that we check or keep (OIDC Core §2), decoded leniently
/// where providers differ: `aud` as a string or an array (RFC 7519 §4.1.3), and Apple's
/// `email_verified`/`is_private_email` as booleans or the strings "true"/"false".
struct IdentityTokenClaims: Decodable {
    var iss: String?
    var sub: String?
    var aud: [String]
    var exp: Double?
    var iat: Double?
    var nonce: String?
    var email: String?
    var emailVerified: Bool?
    var isPrivateEmail: Bool?
    var codeHash: String?
    /// OIDC Core §2: the authorized party.
    var azp: String?
    /// Google: the Workspace domain of the account.
    var hd: String?
    /// Apple, during a team transfer: the identifier the sending team exported for this user.
    var transferSub: String?
    /// OIDC Core §5.1; read leniently (a name of another type is no name), kept only where the
    /// connector keeps names (Facebook's).
    var givenName: String?
    var familyName: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email, azp, hd
        case transferSub = "transfer_sub"
        case codeHash = "c_hash"
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case givenName = "given_name"
        case familyName = "family_name"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decodeIfPresent(String.self, forKey: .iss)
        sub = try container.decodeIfPresent(String.self, forKey: .sub)
        if let single = try? container.decode(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try container.decodeIfPresent([String].self, forKey: .aud) ?? []
        }
        exp = try container.decodeIfPresent(Double.self, forKey: .exp)
        iat = try container.decodeIfPresent(Double.self, forKey: .iat)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        codeHash = try container.decodeIfPresent(String.self, forKey: .codeHash)
        azp = try container.decodeIfPresent(String.self, forKey: .azp)
        hd = try container.decodeIfPresent(String.self, forKey: .hd)
        transferSub = try container.decodeIfPresent(String.self, forKey: .transferSub)
        emailVerified = try Self.flexibleBool(container, .emailVerified)
        isPrivateEmail = try Self.flexibleBool(container, .isPrivateEmail)
        givenName = (try? container.decodeIfPresent(String.self, forKey: .givenName)).flatMap { $0 }
        familyName = (try? container.decodeIfPresent(String.self, forKey: .familyName)).flatMap { $0 }
    }

    private static func flexibleBool(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Bool? {
        if let value = try? container.decodeIfPresent(Bool.self, forKey: key) { return value }
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a boolean")
        }
    }
}

import Foundation
import JOSE

/// the nonce rules (docs/reference.md, "Native sign-in"), which bind an identity token to the sign-in the app started.
///
/// The app generates a raw nonce, hands Apple `hex(SHA-256(nonce))`, and sends us the raw value.
/// Only that hashed form binds the token: the claim is readable in the token, so whoever holds a
/// stolen token could send the claim itself as the "raw" nonce. Accepting the claim verbatim is
/// therefore opt-in (`ISSUER_APPLE_ACCEPT_UNHASHED_NONCE`), and a token that carries a nonce is
/// refused when the request omits one (else omitting it would skip the check).
public struct NoncePolicy: Sendable, Equatable {
    /// `ISSUER_APPLE_REQUIRE_NONCE`: refuse a sign-in without a nonce.
    public var required: Bool
    /// `ISSUER_APPLE_ACCEPT_UNHASHED_NONCE`: also accept the raw nonce as the claim.
    public var acceptUnhashed: Bool

    /// The defaults are docs/reference.md, "Configuration": optional, hashed form only.
    public init(required: Bool = false, acceptUnhashed: Bool = false) {
        self.required = required
        self.acceptUnhashed = acceptUnhashed
    }

    /// Checks the request's raw nonce against the token's `nonce` claim.
    public func check(raw: String?, claim: String?) throws(IdentityTokenError) {
        guard let raw else {
            if required { throw .nonceRequired }
            if claim != nil { throw .nonceMissing }
            return
        }
        guard let claim, matches(raw: raw, claim: claim) else { throw .rejected("nonce mismatch") }
    }

    /// A token that carries a nonce sent without the request's raw nonce: the one refusal whose
    /// reason the client is told (`IdentityTokenError+OAuth.swift`), since it is the app's
    /// integration mistake and tells nobody anything the token does not show.
    static let missingReason = "the token carries a nonce; the request must send it"

    /// What the app (or the hosted flow) hands Apple for a raw nonce: lowercase hex SHA-256.
    public static func hashed(_ raw: String) -> String {
        JOSEDigest.sha256(Data(raw.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Constant-time on both forms, so a timing side channel cannot guess a nonce byte by byte.
    func matches(raw: String, claim: String) -> Bool {
        let hashed = Self.hashed(raw)
        let hashedMatches = ConstantTime.equals(Array(hashed.utf8), Array(claim.lowercased().utf8))
        let rawMatches = acceptUnhashed && ConstantTime.equals(Array(raw.utf8), Array(claim.utf8))
        return hashedMatches || rawMatches
    }
}

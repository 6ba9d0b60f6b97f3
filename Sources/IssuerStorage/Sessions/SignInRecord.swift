import Foundation
import IssuerCore

/// One sign-in as `SignInStore`'s statement records it: the user it finds, joins or creates, the
/// session it opens, and what it yields to the client.
struct SignInRecord: Sendable {
    /// What the sign-in yields; the statement stores it with the session.
    enum Yield: Sendable {
        /// The native sign-in (docs/reference.md, "Native sign-in"): the session's first refresh
        /// token, stored as its hash, expiring at `expiresAt`.
        case refreshToken(hash: [UInt8], expiresAt: Date)
        /// The hosted flow (docs/reference.md, "Hosted sign-in"): a one-time code (stored as its
        /// hash) bound to the client, its redirect URI and its PKCE challenge, and the sealed
        /// state spent, so a second use of it writes nothing. The refresh token is issued when
        /// the code is redeemed. `dpopJKT` binds the code to a DPoP key (docs/reference.md, "DPoP").
        case authorizationCode(
            hash: [UInt8], expiresAt: Date, redirectURI: String, codeChallenge: String, stateHash: [UInt8], stateExpiresAt: Date,
            dpopJKT: String? = nil)
    }

    /// Who signed in, through which client, with which scopes.
    var request: SignInRequest
    /// A new user's id, or the existing user a first sign-in joins by verified e-mail.
    var userID: UUID
    /// The new session's id.
    var sessionID: UUID
    /// The sign-in's time: the session's `auth_time`.
    var now: Date
    /// The session's hard end.
    var sessionExpiresAt: Date
    var yields: Yield

    /// Whether the request's name may overwrite the stored one. Not in the hosted flow: its name
    /// comes from Apple's unsigned `user` form field, which is taken only for a user it creates.
    var overwritesName: Bool {
        if case .refreshToken = yields { true } else { false }
    }
}

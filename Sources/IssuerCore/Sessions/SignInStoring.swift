import Foundation

/// What the native exchange and the token exchange ask of storage (the fosite habit: a narrow
/// seam per flow): record one sign-in and its first refresh token (`SignInStore`).
public protocol SignInStoring: Sendable {
    /// Signs the user in; throws `IdentityDisabled` when the provider disabled the identity, or
    /// the storage's own error (the caller maps unavailability to 503, `OAuthError.storage`).
    func signIn(_ request: SignInRequest) async throws -> SignIn
}

/// What the hosted flow asks of storage: the sign-in that spends a callback's state and stores a
/// one-time authorization code, and whether a state was spent already (`SignInStore`).
public protocol HostedSignInStoring: Sendable {
    /// Signs the user in and stores a code for `authorization`; throws
    /// `StateAlreadySpent` for a replayed state, `IdentityDisabled`, or the storage's own error.
    func signIn(
        _ request: SignInRequest, authorization: AuthorizationRequest, codeLifetime: Duration,
        stateHash: [UInt8], stateExpiresAt: Date
    ) async throws -> (signIn: SignIn, code: AuthorizationCode)
    /// Whether the state with this hash signed someone in already.
    func isSpent(stateHash: [UInt8]) async throws -> Bool
}

/// The provider disabled the identity (Google's `account-disabled` for hijacking, until its
/// `account-enabled`): nobody signs in with it (docs/reference.md, "Google's account-protection
/// events"). Thrown by `SignInStoring` and `HostedSignInStoring`.
public struct IdentityDisabled: Error {
    /// What the refusal says (`400 invalid_grant`, or the hosted flow's `access_denied`).
    public static let description = "Sign-in with this account is disabled by Google."

    public init() {}
}

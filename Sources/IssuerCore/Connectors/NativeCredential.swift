/// What a native app hands the issuer as proof of a provider's sign-in (docs/reference.md,
/// "Native sign-in" and "Facebook"): the provider's ID token, or for a provider whose SDK may
/// give no ID token (Facebook's classic login) its access token, which the provider is asked
/// about. Either is used for the exchange only, never stored or logged.
public enum NativeCredential: Sendable, Equatable {
    case idToken(String)
    case accessToken(String)
}

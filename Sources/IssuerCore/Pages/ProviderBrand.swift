/// Whose published sign-in button a provider's button on the sign-in page follows
/// (docs/reference.md, "The pages people see"): Sign in with Apple's (Apple's Human Interface
/// Guidelines), Google's branding guidelines, Facebook's, or a neutral one for any other OpenID
/// provider. Chosen by the provider's kind, never by its name.
public enum ProviderBrand: String, Sendable, CaseIterable {
    case apple
    case google
    /// For providers of kind `facebook` (docs/reference.md, "Facebook").
    case facebook
    case neutral
}

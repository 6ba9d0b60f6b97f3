/// Linking by e-mail (docs/reference.md, "Linked identities"), decided here and nowhere else:
/// which providers are trusted for e-mail, and the one form in which addresses are compared.
///
/// Both sides must be trusted. A first sign-in links only when its provider is trusted, and
/// only to identities of trusted providers: otherwise anyone could register a victim's address
/// through a provider nobody vouches for and wait for the victim's first sign-in (the
/// pre-hijacked account). Addresses are compared by the issuer, never by the database's
/// collation, whose `lower()` folds `İ` to `i` under a UTF-8 locale: anything but printable
/// ASCII never links, and only ASCII letters' case is ignored.
public struct EmailLinking: Sendable, Equatable {
    /// The providers whose verified addresses take part: each provider's
    /// `link_by_verified_email`, and Apple's with `ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL`.
    public let trustedProviders: Set<String>

    /// Nobody is trusted: every first sign-in creates a user (the default).
    public static let off = EmailLinking(trustedProviders: [])

    public init(trustedProviders: Set<String>) {
        self.trustedProviders = trustedProviders
    }

    /// The configured trust: every provider with `link_by_verified_email`, and Apple with
    /// `ISSUER_APPLE_LINK_BY_VERIFIED_EMAIL`.
    public init(_ configuration: Configuration) {
        var trusted = Set(configuration.providers.providers.filter(\.linkByVerifiedEmail).map(\.id))
        if configuration.appleLinkByVerifiedEmail { trusted.insert(IdentityProvider.apple.name) }
        self.init(trustedProviders: trusted)
    }

    /// Apple's private relay domain: a relay address is one per app team, never a person's
    /// shared address.
    static let relaySuffix = "@privaterelay.appleid.com"

    /// The address by which a first sign-in of `identity` may join an existing user: its
    /// comparison form, when the provider is trusted, the address verified and not a relay.
    public func linkingAddress(of identity: ExternalIdentity) -> String? {
        guard trustedProviders.contains(identity.provider), identity.emailVerified == true,
              let email = identity.email, let form = Self.comparisonForm(email),
              !form.hasSuffix(Self.relaySuffix) else { return nil }
        return form
    }

    /// The form addresses are compared in: printable ASCII (`!` to `~`) with `A`-`Z` lowered,
    /// nil for anything else. The database computes the same form for every stored identity
    /// (`identities.email_key`, migration 0011), so both sides meet with a byte-wise `=`.
    public static func comparisonForm(_ email: String) -> String? {
        let bytes = Array(email.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

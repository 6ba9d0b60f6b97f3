/// Where account, Apple-custody and remote-key events are counted (docs/reference.md, "Operations" `/metrics`, docs/reference.md, "Apple token custody", "Apple notifications" and "Google's account-protection events"). The
/// server's metrics implement it; the core only reports.
public protocol AccountEvents: Sendable {
    /// An account was deleted; `reason` is `AccountDeletion.Reason.rawValue`.
    func accountDeleted(reason: String)
    /// One attempt to revoke at Apple ended: `revoked`, `already_invalid` or `failed`.
    func appleRevocation(outcome: String)
    /// One attempt to redeem an Apple authorization code ended: `redeemed`, `refused`, `failed` or `expired`.
    func appleRedemption(outcome: String)
    /// One Apple server-to-server notification was answered, by event type (`invalid` when it
    /// failed verification, `unavailable` when Apple's keys could not be had, `duplicate` when
    /// its `jti` was already applied).
    func appleNotification(type: String)
    /// One event of a Google security event token was answered, by event type (`invalid` when
    /// the token failed verification, `unavailable` when Google's keys could not be had,
    /// `duplicate` when its `jti` was already applied: once per token for those three).
    func googleSecurityEvent(type: String)
    /// How many Apple revocations wait in the queue.
    func appleRevocationQueue(depth: Int)
    /// A spent refresh token came back after the reuse grace, and its session was revoked.
    func refreshReuseDetected()
    /// A sign-in with `provider` ended (docs/reference.md, "Operations"): `flow` is `native`,
    /// `token_exchange` or `hosted`; `outcome` is `success` or the RFC 6749 error code it failed with.
    func signIn(provider: String, flow: String, outcome: String)
    /// An identity was linked to a user (docs/reference.md, "Linked identities"): `by` is `user`
    /// (from a signed-in session) or `verified_email` (a first sign-in joined by e-mail).
    func identityLinked(provider: String, by: String)
    /// An identity was unlinked by its user.
    func identityUnlinked(provider: String)
    /// A provider's key set was fetched (`RemoteJWKSCache`); `keys` names whose (`apple`, a
    /// provider id, `google_risc`); `failure` says why it failed, nil when it did not.
    func keysFetched(keys: String, failure: RemoteFetchFailure?)
    /// A provider's callback was answered (docs/reference.md, "Facebook's callbacks"): `callback`
    /// names it (`deauthorize`, `data_deletion`); `outcome` is `applied`, `nothing_to_do`,
    /// `duplicate` or `invalid`.
    func providerCallback(provider: String, callback: String, outcome: String)
}

/// Counts nothing: for tools and tests that do not expose metrics.
public struct UncountedAccountEvents: AccountEvents {
    /// Nothing to configure.
    public init() {}
    /// Not counted.
    public func accountDeleted(reason: String) {}
    /// Not counted.
    public func appleRevocation(outcome: String) {}
    /// Not counted.
    public func appleRedemption(outcome: String) {}
    /// Not counted.
    public func appleNotification(type: String) {}
    /// Not counted.
    public func googleSecurityEvent(type: String) {}
    /// Not published.
    public func appleRevocationQueue(depth: Int) {}
    /// Not counted.
    public func refreshReuseDetected() {}
    /// Not counted.
    public func signIn(provider: String, flow: String, outcome: String) {}
    /// Not counted.
    public func identityLinked(provider: String, by: String) {}
    /// Not counted.
    public func identityUnlinked(provider: String) {}
    /// Not counted.
    public func keysFetched(keys: String, failure: RemoteFetchFailure?) {}
    /// Counts nothing.
    public func providerCallback(provider: String, callback: String, outcome: String) {}
}

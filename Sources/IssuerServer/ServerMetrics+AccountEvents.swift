import IssuerCore

/// The core reports account and Apple-custody events; `/metrics` counts them (docs/reference.md, "Operations").
extension ServerMetrics: AccountEvents {
    /// `issuer_accounts_deletions_total{reason}`.
    public func accountDeleted(reason: String) { recordAccountDeletion(reason: reason) }
    /// `issuer_apple_revocations_total{outcome}`.
    public func appleRevocation(outcome: String) { recordAppleRevocation(outcome: outcome) }
    /// `issuer_apple_code_redemptions_total{outcome}`.
    public func appleRedemption(outcome: String) { recordAppleRedemption(outcome: outcome) }
    /// `issuer_provider_callbacks_total{provider,callback,outcome}`.
    public func providerCallback(provider: String, callback: String, outcome: String) {
        recordProviderCallback(provider: provider, callback: callback, outcome: outcome)
    }
    /// `issuer_apple_notifications_total{type}`.
    public func appleNotification(type: String) { recordAppleNotification(type: type) }
    /// `issuer_google_security_events_total{type}`.
    public func googleSecurityEvent(type: String) { recordGoogleSecurityEvent(type: type) }
    /// `issuer_apple_revocation_queue_depth`.
    public func appleRevocationQueue(depth: Int) { recordAppleRevocationQueue(depth: depth) }
    /// The refresh reuse counter, the same one the refresh grant's detections use.
    public func refreshReuseDetected() { recordRefreshReuse() }
    /// `issuer_sign_ins_total{provider,flow,outcome}`.
    public func signIn(provider: String, flow: String, outcome: String) { recordSignIn(provider: provider, flow: flow, outcome: outcome) }
    /// `issuer_identity_links_total{provider,by}`.
    public func identityLinked(provider: String, by: String) { recordIdentityLink(provider: provider, by: by) }
    /// `issuer_identity_unlinks_total{provider}`.
    public func identityUnlinked(provider: String) { recordIdentityUnlink(provider: provider) }
    /// `issuer_jwks_fetches_total{provider}` and `issuer_jwks_fetch_failures_total{provider,reason}`.
    public func keysFetched(keys: String, failure: RemoteFetchFailure?) { recordJWKSFetch(provider: keys, failure: failure) }
}

import Foundation

/// One event a provider sent about one of its accounts, verified and decoded by that provider's
/// decoder (`AppleNotifications`, `GoogleRISC`) into what it does here: a list of provider-neutral
/// effects that `SecurityEventPipeline` applies. The decoder decides what an event means (the
/// tables of docs/reference.md, "Apple notifications" and "Google's account-protection events");
/// the pipeline only applies effects, and knows no provider.
struct SecurityEvent: Sendable, Equatable {
    /// What an event does to the user whose identity it names, each in the transaction that
    /// records the event's id.
    enum Effect: Sendable, Equatable {
        /// Every live session of the user begun by `time` is revoked, with `reason` kept on it; a
        /// sign-in after it is a new one.
        case sessionsRevoked(begunBy: Date, reason: String)
        /// As `sessionsRevoked`, for the sessions begun through the event's provider only: the
        /// user ended that provider's authorization, not the others' (Facebook's deauthorize).
        case providerSessionsRevoked(begunBy: Date, reason: String)
        /// The provider's grants we keep for the user (refresh tokens and codes still to redeem)
        /// that were kept by `time` are dropped: the provider ended them itself, so there is
        /// nothing to revoke there.
        case heldGrantsDropped(keptBy: Date)
        /// Sign-in with the identity is marked disabled at `time` for the provider's `reason`,
        /// unless a later enable or disable was applied. Which reasons refuse a sign-in is the
        /// sign-in's decision (`SignInStore`).
        case signInDisabled(reason: String?, at: Date)
        /// A disable is cleared, unless a later enable or disable was applied.
        case signInEnabled(at: Date)
        /// Something the provider said is recorded for operators (`issuer users show`), with no
        /// other consequence.
        case recorded(State, at: Date)
        /// What the user's profile holds from the identity goes with it: its e-mail (replaced by the
        /// address of the user's most recently used other identity, if any) and the name, which
        /// the provider may have supplied (Facebook's data deletion).
        case profileFromIdentityCleared
        /// The identity is removed; a user left with no identity is deleted as
        /// docs/reference.md, "Account deletion" says, for `reason`, its provider tokens revoked.
        case identityRemoved(orphanDeletedFor: AccountDeletion.Reason)
        /// The user is deleted as docs/reference.md, "Account deletion" says, for `reason`;
        /// `revokeHeldTokens` false when the provider deleted the account itself, so there is
        /// nothing to tell it.
        case accountDeleted(AccountDeletion.Reason, revokeHeldTokens: Bool)
    }

    /// A state recorded by `Effect.recorded`.
    enum State: Sendable, Equatable {
        /// Whether the provider's e-mail relay forwards to the user, kept on the user; an older
        /// change delivered late never overwrites a newer one.
        case emailForwarding(enabled: Bool)
        /// The provider asks the user to change a credential, kept on the identity; the latest
        /// time is kept.
        case credentialChangeRequired
    }

    /// The event's type as the decoder names it in the received-event record, metrics and logs:
    /// a fixed set per decoder, so that a sender cannot grow a metric's label set.
    var name: String
    /// The provider's `sub` of the account it concerns; nil for an event that names no account
    /// (a stream's test event, a type we do not know), which changes nothing.
    var subject: String?
    /// What it does, in order, to the user with that identity; none for an event that only needs
    /// an answer.
    var effects: [Effect]

    /// Why the event deletes an account, when it can.
    var deletionReason: AccountDeletion.Reason? {
        for effect in effects {
            switch effect {
            case .identityRemoved(let reason), .accountDeleted(let reason, _): return reason
            default: continue
            }
        }
        return nil
    }
}

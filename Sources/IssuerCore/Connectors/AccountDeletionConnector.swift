/// One connector's on-account-deletion capability (docs/design.md, "Connectors"): what a
/// provider is told when an account with its identity is deleted (docs/reference.md, "Account
/// deletion"). Facebook's removes the app's permissions. The notice is queued in the deletion's
/// own transaction and sent by `DeletionNoticeQueue`, which knows no provider.
public protocol AccountDeletionConnector: Sendable {
    /// The provider's id, as its identities name it.
    var provider: String { get }

    /// Tells the provider that the account whose identity at it is `subject` is gone.
    func accountDeleted(subject: String) async -> DeletionNoticeOutcome
}

/// How telling a provider of a deletion ended.
public enum DeletionNoticeOutcome: Sendable, Equatable {
    /// The provider accepted it.
    case done
    /// The provider has nothing left to forget (the person removed the app, or the account is
    /// gone): nothing to retry.
    case alreadyGone
    /// Try again later; the reason names no token or secret.
    case failed(String)
}

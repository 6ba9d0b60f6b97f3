/// Facebook's on-account-deletion capability (docs/reference.md, "Facebook"): the app's
/// permissions removed with the app access token, so the app leaves the person's Facebook settings.
public struct FacebookAccountDeletion: AccountDeletionConnector {
    public let provider: String
    private let graph: FacebookGraph

    public init(provider: String, graph: FacebookGraph) {
        self.provider = provider
        self.graph = graph
    }

    public func accountDeleted(subject: String) async -> DeletionNoticeOutcome {
        switch await graph.removePermissions(userID: subject) {
        case .removed: .done
        case .alreadyGone: .alreadyGone
        case .failed(let reason): .failed(reason)
        }
    }
}

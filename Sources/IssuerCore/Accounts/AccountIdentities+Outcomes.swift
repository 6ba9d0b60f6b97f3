import Foundation

/// What `AccountIdentitiesStoring` answers of a link or an unlink.
extension AccountIdentities {
    /// How a link ended.
    package enum Linked: Sendable, Equatable {
        case linked
        case alreadyLinked
        case inUse
        case providerTaken
        /// The proving session was no longer live when the link was to be written: nothing changed.
        case sessionEnded
    }

    /// How an unlink ended; `claimed` are Apple tokens to revoke now that they are queued.
    package enum Unlinked: Sendable {
        case unlinked(claimed: [AppleRevocationQueue.Claimed])
        case notLinked
        case lastIdentity
        /// The proving session was no longer live when the unlink was to be written: nothing changed.
        case sessionEnded
    }
}

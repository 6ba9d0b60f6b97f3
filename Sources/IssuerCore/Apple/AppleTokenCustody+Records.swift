import Foundation

/// What custody's storage (`AppleCustodyStoring`) answers: the rows a worker claims, and what
/// became of a token it tried to keep.
extension AppleTokenCustody {
    /// A pending code claimed by one worker.
    package struct Pending: Sendable {
        package var id: UUID
        package var userID: UUID
        package var clientID: String
        package var redirectURI: String?
        package var sealedCode: [UInt8]
        package var attempts: Int
        package var expiresAt: Date

        package init(
            id: UUID, userID: UUID, clientID: String, redirectURI: String?, sealedCode: [UInt8], attempts: Int, expiresAt: Date
        ) {
            self.id = id
            self.userID = userID
            self.clientID = clientID
            self.redirectURI = redirectURI
            self.sealedCode = sealedCode
            self.attempts = attempts
            self.expiresAt = expiresAt
        }
    }

    /// An answer of Apple's held unverified, claimed by one worker.
    package struct Held: Sendable {
        package var id: UUID
        package var userID: UUID
        package var clientID: String
        /// The refresh token and the `id_token`, sealed as `AppleTokenVault.Kind.tokenAnswer`.
        package var sealedAnswer: [UInt8]
        /// When Apple sent it: its `id_token` is judged as of then.
        package var receivedAt: Date
        package var attempts: Int

        package init(id: UUID, userID: UUID, clientID: String, sealedAnswer: [UInt8], receivedAt: Date, attempts: Int) {
            self.id = id
            self.userID = userID
            self.clientID = clientID
            self.sealedAnswer = sealedAnswer
            self.receivedAt = receivedAt
            self.attempts = attempts
        }
    }

    /// What became of a redeemed token.
    package enum Kept: Sendable, Equatable {
        case kept
        /// The user no longer exists.
        case userGone
        /// The token's Apple account is not this user's.
        case notTheirs
        /// The held answer was settled by another process already (its claim had run out).
        case settledElsewhere
    }
}

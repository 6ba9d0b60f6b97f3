import Foundation

/// A presented refresh token as stored, with the verdict of the rules the database decides.
public struct SessionProofRecord: Sendable, Equatable {
    /// The state of the token and its session, first broken rule first (the refresh grant's order).
    public enum State: String, Sendable, Equatable {
        case revoked
        case sessionExpired = "session_expired"
        case spent
        case expired
        case current
    }

    public var state: State
    public var sessionID: UUID
    public var spentAt: Date?
    public var successorHash: [UInt8]?

    public init(state: State, sessionID: UUID, spentAt: Date? = nil, successorHash: [UInt8]? = nil) {
        self.state = state
        self.sessionID = sessionID
        self.spentAt = spentAt
        self.successorHash = successorHash
    }
}

import Foundation

/// What the janitor deletes: each kind of row that outlives its use.
package enum ExpiredRows: Sendable, CaseIterable {
    /// Refresh tokens past their own expiry.
    case refreshTokens
    /// Sessions past their maximum age, with whatever tokens remain (ON DELETE CASCADE).
    case sessions
    /// Spent hosted-flow states: they only matter while the state could still open.
    case spentAuthorizationStates
    /// DPoP proofs past their lifetime: the `jti` memory only covers a proof while it could be accepted.
    case dpopProofs
}

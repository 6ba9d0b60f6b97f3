import Foundation
@testable import IssuerCore
import Synchronization

/// `HostedSignInStoring` in memory, for the hosted flow's decisions without a database: every
/// sign-in is recorded and answered with a new user and code, and spends its state, so a second
/// sign-in with the same state throws `StateAlreadySpent` as the statement does.
final class FakeHostedSignInStore: HostedSignInStoring {
    private let state = Mutex<(requests: [SignInRequest], spent: Set<[UInt8]>)>(([], []))
    private let clock: any WallClock

    init(clock: any WallClock) {
        self.clock = clock
    }

    /// The sign-ins asked of it, in order.
    var requests: [SignInRequest] { state.withLock { $0.requests } }

    func signIn(
        _ request: SignInRequest, authorization: AuthorizationRequest, codeLifetime: Duration,
        stateHash: [UInt8], stateExpiresAt: Date
    ) async throws -> (signIn: SignIn, code: AuthorizationCode) {
        try state.withLock {
            guard $0.spent.insert(stateHash).inserted else { throw StateAlreadySpent() }
            $0.requests.append(request)
        }
        let user = UserProfile(
            id: UUID(), email: request.identity.email, emailVerified: request.identity.emailVerified,
            givenName: request.givenName, familyName: request.familyName)
        let now = clock.now
        return (SignIn(user: user, sessionID: UUID(), authTime: now, sessionExpiresAt: now.addingTimeInterval(86_400)), .generate())
    }

    func isSpent(stateHash: [UInt8]) async throws -> Bool {
        state.withLock { $0.spent.contains(stateHash) }
    }
}

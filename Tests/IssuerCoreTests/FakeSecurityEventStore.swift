import Foundation
@testable import IssuerCore
import Synchronization

/// `SecurityEventStoring` and its changes in memory, for the decisions of `SecurityEventPipeline`
/// and the decoders over it: knows which (provider, subject) belongs to which user and which user
/// keeps another identity, and records each change as a line. Its transaction is the store itself,
/// rolled back by nothing: a test that throws looks no further.
final class FakeSecurityEventStore: SecurityEventStoring, SecurityEventChanges {
    private struct State {
        var seenIDs: Set<String> = []
        var users: [String: UUID] = [:]
        var keepsAnotherIdentity: Set<UUID> = []
        var changes: [String] = []
        var deletions: [String] = []
    }

    private let state = Mutex(State())

    /// `sender/id` of each delivery recorded.
    var seenIDs: Set<String> { state.withLock { $0.seenIDs } }
    /// The user of each identity, keyed `provider/subject`.
    var users: [String: UUID] {
        get { state.withLock { $0.users } }
        set { state.withLock { $0.users = newValue } }
    }
    /// Users that keep an identity once one is unlinked.
    var keepsAnotherIdentity: Set<UUID> {
        get { state.withLock { $0.keepsAnotherIdentity } }
        set { state.withLock { $0.keepsAnotherIdentity = newValue } }
    }
    /// Each change, in order.
    var changes: [String] {
        get { state.withLock { $0.changes } }
        set { state.withLock { $0.changes = newValue } }
    }

    /// Each deletion as `reason, revoke <revokeHeldTokens>`.
    var deletions: [String] { state.withLock { $0.deletions } }

    private func change(_ line: String) { state.withLock { $0.changes.append(line) } }

    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (any SecurityEventChanges) throws -> T) async throws -> T {
        try body(self)
    }

    func recordOnce(sender: String, id: String, types: String, now: Date) throws -> Bool {
        state.withLock { $0.seenIDs.insert("\(sender)/\(id)").inserted }
    }

    func userID(provider: String, subject: String) throws -> UUID? { users["\(provider)/\(subject)"] }

    func revokeSessions(userID: UUID, begunBy time: Date, reason: String, now: Date) throws { change("revoke \(reason)") }

    func revokeSessions(userID: UUID, through provider: String, begunBy time: Date, reason: String, now: Date) throws {
        change("revoke \(provider)'s \(reason)")
    }

    func dropHeldGrants(userID: UUID, keptBy time: Date) throws { change("drop grants \(time.timeIntervalSince1970)") }

    func disable(provider: String, subject: String, reason: String?, at time: Date) throws {
        change("disable \(provider) \(reason ?? "-")")
    }

    func enable(provider: String, subject: String, at time: Date) throws { change("enable \(provider)") }

    func setEmailForwarding(userID: UUID, enabled: Bool, at time: Date) throws {
        change("forwarding \(enabled) \(time.timeIntervalSince1970)")
    }

    func requireCredentialChange(provider: String, subject: String, at time: Date) throws { change("credential \(provider)") }

    func clearProfile(fromProvider provider: String, subject: String, userID: UUID, now: Date) throws { change("clear \(provider)'s profile") }

    func unlink(provider: String, subject: String, userID: UUID) throws -> Bool {
        change("unlink \(provider)")
        return keepsAnotherIdentity.contains(userID)
    }

    func deleteAccount(userID: UUID, reason: AccountDeletion.Reason, revokeHeldTokens: Bool, now: Date) throws -> Bool {
        change("delete")
        state.withLock { $0.deletions.append("\(reason.rawValue), revoke \(revokeHeldTokens)") }
        return true
    }
}

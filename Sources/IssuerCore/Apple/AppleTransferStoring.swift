import Foundation

/// What an Apple team transfer asks of storage (docs/reference.md, "Apple team transfer"): Apple
/// identities by stage, the transfer identifier stored beside each, and the re-keying to the
/// receiving team's `sub`, which never takes a `sub` another identity has.
package protocol AppleTransferStoring: Sendable {
    /// Identities not yet exported, after `cursor` in `subject` order.
    func notExported(after cursor: String, limit: Int) async throws -> [(subject: String, clientID: String)]
    /// Exported identities not yet re-keyed, after `cursor` in `transfer_sub` order.
    func notRekeyed(after cursor: String, limit: Int) async throws -> [(transferSub: String, clientID: String)]
    /// Stores the transfer identifier Apple gave for `subject`, and the team it was made for.
    func recordExport(subject: String, transferSub: String, target: String) async throws
    /// Re-keys the identity exported as `transferSub` to `subject` and the receiving team's relay
    /// address, in one transaction; false when no such identity waits, or another identity has
    /// that `sub` already.
    func rekey(transferSub: String, to subject: String, email: String?, now: Date) async throws -> Bool
    /// How many Apple identities are at each stage.
    func stages() async throws -> AppleTeamTransfer.Stages
}

import IssuerCore
import Synchronization

/// `AccountEvents` that keeps what it was told, for tests of what an operation counts.
final class RecordingAccountEvents: AccountEvents {
    private let recorded = Mutex<[String]>([])

    /// Each event as `name:label`, in order.
    var events: [String] { recorded.withLock { $0 } }

    private func record(_ event: String) { recorded.withLock { $0.append(event) } }

    func accountDeleted(reason: String) { record("account_deleted:\(reason)") }
    func appleRevocation(outcome: String) { record("apple_revocation:\(outcome)") }
    func appleRedemption(outcome: String) { record("apple_redemption:\(outcome)") }
    func appleNotification(type: String) { record("apple_notification:\(type)") }
    func googleSecurityEvent(type: String) { record("google_security_event:\(type)") }
    func appleRevocationQueue(depth: Int) { record("apple_revocation_queue:\(depth)") }
    func refreshReuseDetected() { record("refresh_reuse") }
    func signIn(provider: String, flow: String, outcome: String) { record("sign_in:\(provider):\(flow):\(outcome)") }
    func identityLinked(provider: String, by: String) { record("identity_linked:\(provider):\(by)") }
    func identityUnlinked(provider: String) { record("identity_unlinked:\(provider)") }
    func keysFetched(keys: String, failure: RemoteFetchFailure?) { record("keys_fetched:\(keys):\(failure?.rawValue ?? "ok")") }
    func providerCallback(provider: String, callback: String, outcome: String) { record("provider_callback:\(provider):\(callback):\(outcome)") }
}

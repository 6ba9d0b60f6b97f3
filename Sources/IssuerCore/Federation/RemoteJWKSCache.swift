import Foundation
import JOSE
import Logging

/// A provider's signing keys, fetched from its `jwks_uri` and cached (docs/reference.md, "Faults and bad input"):
/// `Cache-Control` honoured within bounds; an unknown `kid` refetches at once unless a fetch
/// started in the last 30 s; one fetch however many requests wait for it; keys served stale for
/// up to 7 days while the provider is unreachable; with nothing cached, failed fetches pause the
/// next (`ColdFetchBackoff`). Malformed members, and keys other than RSA or P-256, are
/// skipped, not fatal. A failed fetch keeps its reason (`RemoteFetchFailure`, the discovery
/// document's own when that is what failed) in the log line, the metric and the error.
///
/// Nothing here is Apple-specific: another OpenID provider is another instance with its URL. The
/// timing rules are `RemoteDocumentCache`'s, shared with the discovery document (`ProviderEndpoints`).
public final class RemoteJWKSCache: Sendable {
    /// Where the set lives, as logs and errors name it.
    public let source: String
    private let documents: RemoteDocumentCache<Keys>
    /// A JWK Set's usable keys by `kid`.
    private typealias Keys = [String: JWSVerificationKey]

    /// - Parameters:
    ///   - name: whose keys these are, as `events` are told of every fetch (for metrics).
    public convenience init(
        url: URL, fetcher: any JWKSFetcher, policy: RemoteJWKSPolicy = RemoteJWKSPolicy(), clock: any WallClock,
        logger: Logger = Logger(label: "issuer.jwks"), name: String = "", events: any AccountEvents = UncountedAccountEvents()
    ) {
        self.init(
            source: url.absoluteString, locate: { url }, fetcher: fetcher, policy: policy, clock: clock, logger: logger,
            name: name, events: events)
    }

    /// A set whose URL is found when first needed (`locate`, e.g. a discovery document's
    /// `jwks_uri`); `source` names it in logs until then.
    public init(
        source: String, locate: @escaping @Sendable () async throws -> URL, fetcher: any JWKSFetcher,
        policy: RemoteJWKSPolicy = RemoteJWKSPolicy(), clock: any WallClock, logger: Logger = Logger(label: "issuer.jwks"),
        name: String = "", events: any AccountEvents = UncountedAccountEvents()
    ) {
        self.source = source
        documents = RemoteDocumentCache(policy: policy, clock: clock) {
            try await Self.fetch(
                source: source, locate: locate, fetcher: fetcher, logger: logger, name: name, events: events)
        }
    }

    /// The verification key with this `kid` (RFC 7515 §4.1.4).
    public func key(kid: String?) async throws(RemoteJWKSError) -> JWSVerificationKey {
        let keys: Keys
        do throws(RemoteDocumentCache<Keys>.Unavailable) {
            // The provider may have rotated its keys: a kid not in a fresh set looks again, but no
            // more than once per cooldown (`RemoteDocumentCache`).
            keys = try await documents.document { keys in kid.map { keys[$0] != nil } ?? false }
        } catch {
            throw unavailable(error)
        }
        guard let kid, let key = keys[kid] else { throw .unknownKey }
        return key
    }

    /// The error a caller is given, its words naming the fetch failure's reason.
    private func unavailable(_ error: RemoteDocumentCache<Keys>.Unavailable) -> RemoteJWKSError {
        switch error {
        case .paused(let lastFailure):
            .unavailable("keys at \(source) could not be fetched (\(Self.describe(lastFailure) ?? "failed")); not tried again yet")
        case .coolingDown(latestFailure: nil):
            .unknownKey
        case .coolingDown(let latestFailure?):
            // A look that fails is no verdict on the kid: that is unavailability, so nothing
            // (Apple's token custody above all) treats a passing outage as a forged token.
            .unavailable("keys at \(source) could not be fetched (\(Self.describe(latestFailure) ?? "failed")); the kid may be new")
        case .failed(let failure):
            .unavailable(Self.describe(failure) ?? "failed")
        case .expired(_, let lastFailure):
            .unavailable(
                "keys at \(source) could not be fetched (\(Self.describe(lastFailure) ?? "not tried again yet")) and the cached ones are too old")
        }
    }

    /// A failure as its reason and its words, e.g. `not_json: the body is not a JWK Set`.
    private static func describe(_ error: (any Error)?) -> String? {
        error.map { "\(RemoteFetchFailure(of: $0).rawValue): \($0)" }
    }

    private static func fetch(
        source: String, locate: @Sendable () async throws -> URL, fetcher: any JWKSFetcher, logger: Logger, name: String,
        events: any AccountEvents
    ) async throws -> (document: Keys, maxAge: Int?) {
        do {
            let url = try await locate()
            let document = try await fetcher.fetchJWKS(from: url)
            let keys: [String: JWSVerificationKey]
            do {
                keys = try JWKS.verificationKeys(fromJSON: document.body)
            } catch {
                throw Failure(reason: .notJSON, description: "the body is not a JWK Set")
            }
            guard !keys.isEmpty else { throw Failure(reason: .incomplete, description: "the key set has no usable RS256 or ES256 key") }
            events.keysFetched(keys: name, failure: nil)
            logger.debug("fetched JWKS", metadata: ["url": "\(url.absoluteString)", "keys": "\(keys.count)"])
            return (keys, document.maxAge)
        } catch {
            let reason = RemoteFetchFailure(of: error)
            events.keysFetched(keys: name, failure: reason)
            logger.warning("JWKS fetch failed", metadata: ["url": "\(source)", "reason": "\(reason.rawValue)", "error": "\(error)"])
            throw error
        }
    }

    /// A fetched body that is not a usable key set.
    private struct Failure: RemoteFetchFailureReporting, CustomStringConvertible {
        let reason: RemoteFetchFailure
        let description: String
        var fetchFailure: RemoteFetchFailure { reason }
    }
}

import Foundation
import Logging

/// Where a provider's keys and endpoints are (docs/reference.md, "Google and other OpenID
/// providers"): the configured URLs, and for the rest the provider's discovery document
/// (OpenID Connect Discovery 1.0 §4), fetched with the rules of a remote JWK Set, the one
/// `RemoteDocumentCache` (one fetch at a time, `Cache-Control` within bounds, served stale while
/// the provider is unreachable, failed fetches with nothing cached pausing the next). The
/// document's `issuer` must be the configured one (§4.3), and every URL in it `https` (plain
/// `http` to loopback only when the configured issuer is loopback, `URL.mayBeNamed(byDocumentOf:)`),
/// or it is not used. A failed fetch keeps its reason (`RemoteFetchFailure`): logged here, and
/// thrown to whoever asked.
public final class ProviderEndpoints: Sendable {
    /// The URLs a sign-in needs.
    public struct Resolved: Sendable, Equatable {
        public var jwksURI: URL
        public var authorizationEndpoint: URL?
        public var tokenEndpoint: URL?
        /// The document's `authorization_response_iss_parameter_supported` (RFC 9207 §3): its
        /// authorization responses carry `iss`, so one without it is refused. False when nothing
        /// was fetched (every URL configured).
        public var authorizationResponseIssParameterSupported = false
    }

    /// Why the endpoints are not known.
    public struct Unavailable: RemoteFetchFailureReporting, CustomStringConvertible {
        /// Which of the reasons logs, metrics and `issuer doctor` name.
        public let reason: RemoteFetchFailure
        public let description: String

        public var fetchFailure: RemoteFetchFailure { reason }
    }

    private let settings: ProviderSettings
    private let documents: RemoteDocumentCache<Resolved>

    public init(
        settings: ProviderSettings, fetcher: any JWKSFetcher, policy: RemoteJWKSPolicy = RemoteJWKSPolicy(), clock: any WallClock,
        logger: Logger = Logger(label: "issuer.discovery")
    ) {
        self.settings = settings
        documents = RemoteDocumentCache(policy: policy, clock: clock) {
            try await Self.fetch(settings: settings, fetcher: fetcher, logger: logger)
        }
    }

    /// Whether everything is configured, so the discovery document is never fetched.
    public var isConfigured: Bool {
        settings.jwksURI != nil && (!settings.servesHostedFlow || (settings.authorizationEndpoint != nil && settings.tokenEndpoint != nil))
    }

    public func resolve() async throws -> Resolved {
        if isConfigured, let jwksURI = settings.jwksURI {
            return Resolved(jwksURI: jwksURI, authorizationEndpoint: settings.authorizationEndpoint, tokenEndpoint: settings.tokenEndpoint)
        }
        do throws(RemoteDocumentCache<Resolved>.Unavailable) {
            return try await documents.document()
        } catch {
            switch error {
            case .failed(let failure), .expired(let failure?, _):
                throw Self.unavailable(failure)
            case .paused(let lastFailure), .coolingDown(let lastFailure), .expired(nil, let lastFailure):
                // No fetch was tried: the pause after a failure, or the cooldown, holds.
                let last = lastFailure.map(Self.unavailable)
                throw Unavailable(
                    reason: last?.reason ?? .other,
                    description: "\(last?.description ?? "the discovery document of \(settings.issuer) could not be fetched"); not tried again yet")
            }
        }
    }

    private static func unavailable(_ error: any Error) -> Unavailable {
        error as? Unavailable ?? Unavailable(reason: RemoteFetchFailure(of: error), description: "\(error)")
    }

    /// One fetch of the document, its failure logged once whoever waits on it.
    private static func fetch(settings: ProviderSettings, fetcher: any JWKSFetcher, logger: Logger) async throws -> (
        document: Resolved, maxAge: Int?
    ) {
        do {
            guard let url = settings.discoveryURL else {
                throw Unavailable(reason: .other, description: "no discovery URL for \(settings.issuer)")
            }
            let document: JWKSDocument
            do {
                document = try await fetcher.fetchJWKS(from: url)
            } catch {
                throw Unavailable(
                    reason: RemoteFetchFailure(of: error),
                    description: "the discovery document at \(url.absoluteString) could not be fetched: \(error)")
            }
            return (try resolved(document.body, settings: settings), document.maxAge)
        } catch {
            let failure = unavailable(error)
            logger.warning("discovery document fetch failed", metadata: [
                "provider": "\(settings.id)", "url": "\(settings.discoveryURL?.absoluteString ?? settings.issuer)",
                "reason": "\(failure.reason.rawValue)", "error": "\(failure.description)",
            ])
            throw failure
        }
    }

    /// The URLs of a discovery document, configured ones first.
    static func resolved(_ body: Data, settings: ProviderSettings) throws -> Resolved {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw Unavailable(reason: .notJSON, description: "the discovery document of \(settings.issuer) is not a JSON object")
        }
        guard object["issuer"] as? String == settings.issuer else {
            throw Unavailable(reason: .issuerMismatch, description: "the discovery document of \(settings.issuer) names another issuer")
        }
        // The configured issuer, not the document, decides whether loopback `http` is allowed.
        let issuer = URL(string: settings.issuer)
        func url(_ name: String) throws -> URL? {
            guard let text = object[name] as? String else { return nil }
            guard let url = URL(string: text), let issuer, url.mayBeNamed(byDocumentOf: issuer) else {
                throw Unavailable(
                    reason: .insecureURL,
                    description: "the discovery document of \(settings.issuer) names a \(name) that is not https: \(text)")
            }
            return url
        }
        guard let jwksURI = try settings.jwksURI ?? url("jwks_uri") else {
            throw Unavailable(reason: .incomplete, description: "the discovery document of \(settings.issuer) has no jwks_uri")
        }
        return Resolved(
            jwksURI: jwksURI, authorizationEndpoint: try settings.authorizationEndpoint ?? url("authorization_endpoint"),
            tokenEndpoint: try settings.tokenEndpoint ?? url("token_endpoint"),
            authorizationResponseIssParameterSupported: object["authorization_response_iss_parameter_supported"] as? Bool == true)
    }
}

import Foundation
import IssuerCore
import IssuerServer

extension DoctorCommand {
    /// `apple keys`: when Apple sign-in is configured, Apple's JWKS is fetched the way the server
    /// fetches it (same deadline, no redirects, `https` or loopback only, the same proxy), and must be a JWK Set
    /// with at least one key; without it no Apple identity token can be verified.
    static func appleKeysCheck(_ configuration: Configuration, timeout: Duration) async -> DoctorCheck {
        guard configuration.appleClientIDs != nil || configuration.appleServicesID != nil else {
            return .ok("apple keys", "Apple sign-in is not configured (no ISSUER_APPLE_CLIENT_IDS or ISSUER_APPLE_SERVICES_ID); nothing to reach")
        }
        let url = configuration.appleJWKSURL
        let started = ContinuousClock.now
        do {
            let document = try await RemoteJWKSFetch.fetcher(timeout: timeout, proxy: configuration.outboundProxy).fetchJWKS(from: url)
            let elapsed = ContinuousClock.now - started
            let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
            // RFC 7517 §5: a JWK Set is an object whose `keys` is an array of keys.
            guard let set = try? JSONSerialization.jsonObject(with: document.body) as? [String: Any],
                  let keys = set["keys"] as? [Any], !keys.isEmpty else {
                return .fail("apple keys", "\(url.absoluteString) answered, but not with a JWK Set that has keys")
            }
            return .ok("apple keys", "\(url.absoluteString) answered with \(keys.count) key(s) in \(milliseconds) ms")
        } catch {
            return .fail("apple keys", "\(url.absoluteString) could not be fetched: \(fetchFailure(error, timeout: timeout))")
        }
    }

    /// `{id} keys` for each provider of `ISSUER_PROVIDERS_FILE`: its endpoints found as the
    /// server finds them (its discovery document unless configured) and its JWKS fetched, with the
    /// same deadline, rules and proxy; a provider whose keys cannot be had signs nobody in.
    static func providerKeysChecks(_ configuration: Configuration, timeout: Duration) async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let fetcher = RemoteJWKSFetch.fetcher(timeout: timeout, proxy: configuration.outboundProxy)
        for settings in configuration.providers.providers {
            let name = "\(settings.id) keys"
            do {
                let endpoints = try await ProviderEndpoints(settings: settings, fetcher: fetcher, clock: SystemClock()).resolve()
                let document = try await fetcher.fetchJWKS(from: endpoints.jwksURI)
                guard let set = try? JSONSerialization.jsonObject(with: document.body) as? [String: Any],
                      let keys = set["keys"] as? [Any], !keys.isEmpty else {
                    checks.append(.fail(name, "\(endpoints.jwksURI.absoluteString) answered, but not with a JWK Set that has keys"))
                    continue
                }
                if settings.servesHostedFlow, endpoints.authorizationEndpoint == nil || endpoints.tokenEndpoint == nil {
                    checks.append(.fail(name, "the hosted flow needs an authorization and a token endpoint, and the provider names none"))
                    continue
                }
                checks.append(.ok(name, "\(endpoints.jwksURI.absoluteString) answered with \(keys.count) key(s)"))
            } catch {
                checks.append(.fail(name, "\(settings.id)'s keys could not be had: \(fetchFailure(error, timeout: timeout))"))
            }
        }
        return checks
    }

    /// Why a fetch failed, by the reason the server's log lines and `issuer_jwks_fetch_failures_total`
    /// name (docs/reference.md, "Faults and bad input"), then the details: a provider that answers
    /// with another issuer is not reported as one that is down.
    static func fetchFailure(_ error: any Error, timeout: Duration) -> String {
        let reason = RemoteFetchFailure(of: error)
        let summary = reason == .timedOut ? "timed out after \(timeout.components.seconds) s" : reason.summary
        return "\(summary) (reason \(reason.rawValue)): \(error)".escapingControlCharacters
    }
}

import Foundation
import IssuerCore

extension DoctorCommand {
    /// The settings that are valid but unsafe for a deployment.
    static func settingsChecks(_ configuration: Configuration) -> [DoctorCheck] {
        [secretCheck(configuration), issuerURLCheck(configuration), audienceCheck(configuration)]
    }

    /// `server secret`: with an external database the secret should come from ISSUER_SECRET (or
    /// its `_FILE` form). Unset, it is generated and kept in the database, beside the sealed Apple
    /// tokens and refresh-token state it protects, so one database dump yields both; a warning,
    /// since it works.
    static func secretCheck(_ configuration: Configuration) -> DoctorCheck {
        if configuration.secret != nil {
            return .ok("server secret", "ISSUER_SECRET is set, and kept out of the database")
        }
        guard configuration.databaseURL != nil else {
            return .ok("server secret", "kept in the embedded database (development); set ISSUER_SECRET in production")
        }
        return .warn("server secret", "ISSUER_SECRET is unset with an external database: the secret is kept in the database it protects; set ISSUER_SECRET or ISSUER_SECRET_FILE")
    }

    /// `issuer url`: the `iss` of every token, and the base of every endpoint, must be `https`
    /// outside loopback (OpenID Connect Discovery 1.0 §3 requires an `https` issuer; over plain
    /// `http` codes and tokens cross the network in clear).
    static func issuerURLCheck(_ configuration: Configuration) -> DoctorCheck {
        let url = configuration.issuerURL
        guard url.scheme?.lowercased() == "http" else {
            return .ok("issuer url", "\(url.absoluteString) is https")
        }
        guard url.isSecureOrLoopback else {
            return .fail("issuer url", "\(url.absoluteString) is plain http outside loopback: tokens and codes would cross the network in clear; set ISSUER_URL to the https URL clients use")
        }
        return .ok("issuer url", "\(url.absoluteString) is plain http on loopback (development only)")
    }

    /// `audience`: access tokens' `aud` should name the API, not a client. An ID token's `aud` is
    /// the client id, so with the two equal an ID token passes an API's audience check, and only
    /// the `typ` check of RFC 9068 §4 (`at+jwt`) still refuses it. A warning: the default
    /// configuration has it, and Issuer's own tokens carry `typ`.
    static func audienceCheck(_ configuration: Configuration) -> DoctorCheck {
        guard configuration.clients.clients.contains(where: { $0.clientID == configuration.audience }) else {
            return .ok("audience", "ISSUER_AUDIENCE \(configuration.audience) is no client's id")
        }
        return .warn("audience", "ISSUER_AUDIENCE \(configuration.audience) is also a client id: an ID token for that client passes an API's audience check, and only the typ check (at+jwt) refuses it; name the API instead")
    }
}

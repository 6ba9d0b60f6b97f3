import Logging

/// Why a hosted-flow callback did not prove an identity (`HostedFlowConnector`), as the flow
/// answers it (docs/reference.md, "Hosted sign-in").
public enum HostedFlowFailure: Error, Sendable, Equatable {
    /// RFC 9207 §2.4: the answer came from another authorization server (a mix-up), or lacks the
    /// `iss` its provider promises. A plain 400 page: nothing is redirected to the client, and
    /// nothing was sent to a token endpoint.
    case wrongIssuer
    /// An RFC 6749 §4.1.2.1 error redirected to the client: its `code`, a client-safe
    /// `description`, and a `reason` that only the log line carries.
    case refused(OAuthError.Code, description: String, reason: String)

    /// RFC 9207 §2.4: an `iss` in the provider's answer must be that provider's issuer, and one is
    /// required where its discovery says `authorization_response_iss_parameter_supported`.
    /// Throws `wrongIssuer`, logged, when the answer does not pass.
    public static func checkIssuer(
        _ iss: String?, of provider: IdentityProvider, required: Bool, logger: Logger
    ) throws(HostedFlowFailure) {
        if let iss, provider.issuers.contains(iss) { return }
        if iss == nil, !required { return }
        logger.warning("hosted sign-in refused", metadata: [
            "reason": iss == nil ? "no iss from a provider that sends one (RFC 9207)" : "iss is not the provider's (RFC 9207)",
            "provider": "\(provider.name)",
        ])
        throw .wrongIssuer
    }
}

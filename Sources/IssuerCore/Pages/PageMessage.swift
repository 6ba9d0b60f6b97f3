/// A sentence on one of the pages people see (docs/reference.md, "The pages people see"): a key
/// of the message catalogue and the values of its placeholders. The flows decide *what* to say;
/// the catalogue says it in the reader's language, so no English leaves the flows for a page.
public struct PageMessage: Sendable, Equatable {
    public var key: Key
    /// The placeholders' values by name (`parameter` for `{parameter}`), as they are: the page
    /// escapes the sentence once they are in.
    public var arguments: [String: String]

    public init(_ key: Key, _ arguments: [String: String] = [:]) {
        self.key = key
        self.arguments = arguments
    }

    /// Every sentence the pages may show, named as `messages/<language>.json` names them. A
    /// translation or an operator's wording may use a key's placeholders and no others.
    public enum Key: String, CaseIterable, Sendable {
        // The sign-in page.
        case signInHeading = "sign_in.heading"
        case signInPrompt = "sign_in.prompt"
        case signInPromptForApp = "sign_in.prompt_app"
        case signInWithApple = "sign_in.apple"
        case signInWithGoogle = "sign_in.google"
        case signInWithFacebook = "sign_in.facebook"
        case signInWithProvider = "sign_in.provider"
        // What each other page is, and what the reader can do about it.
        case signInRefusedTitle = "sign_in_refused.title"
        case signInRefusedAdvice = "sign_in_refused.advice"
        case signOutRefusedTitle = "sign_out_refused.title"
        case signOutRefusedAdvice = "sign_out_refused.advice"
        case unavailableTitle = "unavailable.title"
        case unavailableAdvice = "unavailable.advice"
        case signedOutTitle = "signed_out.title"
        case signedOut = "signed_out.message"
        // The status page of a provider's data deletion request (docs/reference.md, "Facebook's callbacks").
        case dataDeletionTitle = "data_deletion.title"
        case dataDeletionReceived = "data_deletion.received"
        case dataDeletionDone = "data_deletion.done"
        case dataDeletionUnknown = "data_deletion.unknown"
        case details = "page.details"
        // Why a sign-in was refused, for the app's developers as much as for the reader.
        case requestMalformed = "refusal.request_malformed"
        case responseMalformed = "refusal.response_malformed"
        case parameterRepeated = "refusal.parameter_repeated"
        case parameterMissing = "refusal.parameter_missing"
        case clientUnknown = "refusal.client_unknown"
        case redirectURIUnregistered = "refusal.redirect_uri_unregistered"
        case notConfigured = "refusal.not_configured"
        case providerUnknown = "refusal.provider_unknown"
        case clientGone = "refusal.client_gone"
        case stateInvalid = "refusal.state_invalid"
        case stateUsed = "refusal.state_used"
        case wrongIssuer = "refusal.wrong_issuer"
        // Why a sign-out was refused.
        case signOutMalformed = "refusal.sign_out_malformed"
        case signOutParameterRepeated = "refusal.sign_out_parameter_repeated"
        case hintInvalid = "refusal.hint_invalid"
        case hintClientMismatch = "refusal.hint_client_mismatch"
        case postLogoutURIUnregistered = "refusal.post_logout_uri_unregistered"
        case signOutFailed = "refusal.sign_out_failed"

        /// The placeholders its sentence may hold.
        public var placeholders: Set<String> {
            switch self {
            case .signInPromptForApp: ["app"]
            case .signInWithProvider: ["provider"]
            case .parameterRepeated, .parameterMissing: ["parameter"]
            case .details: ["details"]
            case .dataDeletionReceived: ["time"]
            case .dataDeletionDone: ["provider"]
            default: []
            }
        }
    }
}

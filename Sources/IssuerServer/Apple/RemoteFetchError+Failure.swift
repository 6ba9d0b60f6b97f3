import IssuerCore

/// docs/reference.md, "Faults and bad input": each way an exchange fails is one reason of the
/// closed set that logs, metrics and `issuer doctor` name.
extension RemoteFetchError: RemoteFetchFailureReporting {
    var fetchFailure: RemoteFetchFailure {
        switch self {
        case .insecureURL: .insecureURL
        case .timedOut: .timedOut
        case .tooLarge: .tooLarge
        case .redirected: .redirected
        case .status: .httpStatus
        case .transport: .connectionFailed
        }
    }
}

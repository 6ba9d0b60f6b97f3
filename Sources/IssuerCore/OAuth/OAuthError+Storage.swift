extension OAuthError {
    /// docs/design.md, "Errors": a storage failure is translated at the service boundary. An unreachable
    /// database is the client's cue to retry (503), as is one that refuses our connection settings
    /// (an operator's fault, fixed without the client); anything else is our fault (500).
    public static func storage(_ error: any Error) -> OAuthError {
        if let error = error as? any StorageFailure, error.leavesServiceUnavailable {
            return .temporarilyUnavailable("The service is temporarily unavailable; try again shortly.", debug: "\(error)")
        }
        return .serverError(debug: "storage: \(error)")
    }
}

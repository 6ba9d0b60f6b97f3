/// The hosted flow's state was used before: a replayed callback. Thrown by `HostedSignInStoring`.
public struct StateAlreadySpent: Error {
    public init() {}
}

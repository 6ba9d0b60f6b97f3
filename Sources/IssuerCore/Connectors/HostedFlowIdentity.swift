/// What a hosted-flow callback proved (`HostedFlowConnector`): the verified identity, and the
/// name the provider told us beside it, if any (Apple posts it once, on the first consent).
public struct HostedFlowIdentity: Sendable {
    public var identity: ExternalIdentity
    public var givenName: String?
    public var familyName: String?

    public init(_ identity: ExternalIdentity, givenName: String? = nil, familyName: String? = nil) {
        self.identity = identity
        self.givenName = givenName
        self.familyName = familyName
    }
}

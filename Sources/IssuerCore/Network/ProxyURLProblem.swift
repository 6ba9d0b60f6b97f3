/// Why a proxy URL was refused, without the URL's credentials.
public struct ProxyURLProblem: Error, Sendable, Equatable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// An error of a remote fetch that knows which `RemoteFetchFailure` it is, so that the reason
/// survives the layers between the HTTP exchange and the log line, metric or `issuer doctor`.
public protocol RemoteFetchFailureReporting: Error {
    var fetchFailure: RemoteFetchFailure { get }
}

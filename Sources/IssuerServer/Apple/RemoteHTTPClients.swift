import AsyncHTTPClient
import IssuerCore
import Synchronization

/// The HTTP clients outbound calls use (docs/reference.md, "Outbound proxy"): one that connects
/// directly, and one per proxy server, which tunnels every request through it with `CONNECT`.
/// AsyncHTTPClient fixes a client's proxy in its configuration, and `NO_PROXY` is a choice per
/// URL, so `RemoteFetch` picks the client for each request (`OutboundProxy.server(for:)`).
///
/// Clients are made on first use and live as long as the process, as `HTTPClient.shared` does;
/// there are at most as many as `HTTPS_PROXY` and `HTTP_PROXY` name servers, plus the direct one.
final class RemoteHTTPClients: Sendable {
    /// The process's clients, with `RemoteFetch.clientConfiguration`.
    static let shared = RemoteHTTPClients(configuration: RemoteFetch.clientConfiguration)

    private let configuration: HTTPClient.Configuration
    private let direct: HTTPClient
    private let proxied = Mutex<[ProxyServer: HTTPClient]>([:])

    /// `configuration` is every client's, less the proxy; a test that owns an instance shuts it
    /// down with `shutdown()`.
    init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
        self.direct = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// The client for a call through `server`, or the direct one for nil.
    func client(through server: ProxyServer?) -> HTTPClient {
        guard let server else { return direct }
        return proxied.withLock { clients in
            if let client = clients[server] { return client }
            var configuration = configuration
            configuration.proxy = .server(
                host: server.host, port: server.port,
                authorization: server.credentials.map { .basic(username: $0.revealed.username, password: $0.revealed.password) })
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[server] = client
            return client
        }
    }

    /// Shuts every client down; for instances a test made, never `shared`.
    func shutdown() async throws {
        let clients = proxied.withLock { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in clients + [direct] {
            try await client.shutdown()
        }
    }
}

import Foundation

/// An HTTP proxy that outbound calls tunnel through with `CONNECT` (RFC 9110 §9.3.6), as
/// `HTTPS_PROXY` or `HTTP_PROXY` names it (docs/reference.md, "Outbound proxy"). Its credentials,
/// if the URL carries any, are sent as RFC 7617 basic authorization and never printed: the
/// description is `http://host:port`.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// A user name and password from the proxy URL's userinfo, percent-decoded.
    public struct Credentials: Sendable, Hashable {
        public let username: String
        public let password: String

        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// A host name or a literal address (an IPv6 one without brackets).
    public let host: String
    public let port: Int
    /// Nil when the URL has no userinfo.
    public let credentials: Secret<Credentials>?

    public init(host: String, port: Int, credentials: Credentials? = nil) {
        self.host = host
        self.port = port
        self.credentials = credentials.map(Secret.init)
    }

    /// `http://host:port`, never the credentials.
    public var description: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// RFC 7617 §2: `Basic base64(user-id ":" password)`, the `Proxy-Authorization` value
    /// (RFC 9110 §11.7.2); nil without credentials.
    public var basicAuthorization: Secret<String>? {
        credentials.map { credentials in
            let pair = credentials.revealed.username + ":" + credentials.revealed.password
            return Secret("Basic " + Data(pair.utf8).base64EncodedString())
        }
    }

    /// Parses a proxy URL: `http://[user:password@]host[:port][/]`. A URL without a scheme is
    /// `http://`; the port defaults to 80. Answers why not, in words that never repeat the
    /// credentials.
    public static func parse(_ text: String) -> Result<ProxyServer, ProxyURLProblem> {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let scheme = components.scheme?.lowercased(),
              var host = components.host, !host.isEmpty
        else {
            return .failure(ProxyURLProblem("is not a proxy URL such as http://proxy.example.com:3128"))
        }
        guard scheme == "http" else {
            return .failure(ProxyURLProblem("must be an http:// proxy URL (a proxy reached over plain HTTP, which tunnels https with CONNECT); \(scheme):// is not supported"))
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil else {
            return .failure(ProxyURLProblem("must be scheme, credentials, host and port only, without path, query or fragment"))
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 80
        guard (1...65535).contains(port) else {
            return .failure(ProxyURLProblem("must have a port from 1 to 65535"))
        }
        var credentials: Credentials?
        if let user = components.user {
            credentials = Credentials(username: user, password: components.password ?? "")
        }
        return .success(ProxyServer(host: host, port: port, credentials: credentials))
    }
}

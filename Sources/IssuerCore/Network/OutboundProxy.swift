import Foundation

/// Which proxy, if any, an outbound call (Apple's JWKS, token and revoke endpoints) goes
/// through: `HTTPS_PROXY` for `https` URLs, `HTTP_PROXY` for `http` ones, none for a host that
/// `NO_PROXY` lists (docs/reference.md, "Outbound proxy"). A pure value, read once at start with
/// the rest of the configuration; an invalid proxy URL or `NO_PROXY` entry stops the process
/// there, naming the variable.
///
/// A loopback target (`localhost`, `127.0.0.0/8`, `::1`) goes direct unless the proxy itself is
/// on loopback: a proxy on another host cannot reach this host's loopback, a local one can.
public struct OutboundProxy: Sendable, Equatable {
    /// For `https` URLs.
    public var https: ProxyServer?
    /// For `http` URLs (which Issuer sends only to loopback: docs/reference.md, "Faults and bad input").
    public var http: ProxyServer?
    /// The hosts reached directly.
    public var noProxy: [NoProxyRule]

    /// No proxy at all.
    public static let direct = OutboundProxy(https: nil, http: nil, noProxy: [])

    public init(https: ProxyServer?, http: ProxyServer?, noProxy: [NoProxyRule]) {
        self.https = https
        self.http = http
        self.noProxy = noProxy
    }

    /// The variables as curl, Go and most tools read them: upper case first, then lower case; an
    /// empty value counts as unset. `ALL_PROXY` is not read.
    public init(environment: [String: String]) throws(ConfigurationError) {
        https = try Self.server(environment, "HTTPS_PROXY")
        http = try Self.server(environment, "HTTP_PROXY")
        var rules: [NoProxyRule] = []
        if let found = Self.value(environment, "NO_PROXY") {
            let (variable, text) = (found.variable, found.text)
            for entry in text.split(separator: ",") where !entry.trimmingCharacters(in: .whitespaces).isEmpty {
                guard let rule = NoProxyRule(String(entry)) else {
                    throw ConfigurationError(setting: variable, problem: "has the entry '\(entry.trimmingCharacters(in: .whitespaces))', which is not a host name, an address, a CIDR or '*' (each optionally with :port)")
                }
                rules.append(rule)
            }
        }
        noProxy = rules
    }

    /// The proxy a call to `url` goes through; nil: direct.
    public func server(for url: URL) -> ProxyServer? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              var host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let server: ProxyServer?
        let port: Int
        switch components.scheme?.lowercased() {
        case "https": (server, port) = (https, components.port ?? 443)
        case "http": (server, port) = (http, components.port ?? 80)
        default: return nil
        }
        guard let server else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        if noProxy.contains(where: { $0.matches(host: host, port: port) }) { return nil }
        if URL.isLoopbackHost(host), !URL.isLoopbackHost(server.host) { return nil }
        return server
    }

    private static func value(_ environment: [String: String], _ upper: String) -> (variable: String, text: String)? {
        for variable in [upper, upper.lowercased()] {
            if let text = environment[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
                return (variable, text)
            }
        }
        return nil
    }

    private static func server(_ environment: [String: String], _ upper: String) throws(ConfigurationError) -> ProxyServer? {
        guard let found = value(environment, upper) else { return nil }
        let (variable, text) = (found.variable, found.text)
        switch ProxyServer.parse(text) {
        case .success(let server):
            return server
        case .failure(let problem):
            throw ConfigurationError(setting: variable, problem: "\(problem.description) (got '\(redacted(text))')")
        }
    }

    /// The URL with any userinfo replaced, so that an error line never carries a proxy password.
    static func redacted(_ text: String) -> String {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        let authorityEnd = text[start...].firstIndex(where: { "/?#".contains($0) }) ?? text.endIndex
        guard let at = text[start..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<start]) + "<redacted>" + String(text[at...])
    }
}

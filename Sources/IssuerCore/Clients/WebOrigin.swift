import Foundation

/// An origin a browser client calls from (RFC 6454 §4: scheme, host and port), written exactly as
/// a browser serialises it in its `Origin` request header (RFC 6454 §6.2), so that comparing the
/// header with a client's `allowed_origins` is a plain string comparison
/// (docs/reference.md, "Configuration" and "Browser clients").
public enum WebOrigin {
    /// Why `text` is not an origin a client may list, phrased to follow "has the allowed origin
    /// '…':"; nil when it is one.
    ///
    /// An origin is `https://host` or `https://host:port`; `http` only to a loopback address, as
    /// redirect URIs (RFC 8252 §7.3). It has no user, path (not even `/`), query or fragment, and
    /// it is in the form a browser sends: scheme and host in lower case, no default port
    /// (443 for `https`, 80 for `http`), the host in ASCII (punycode for an IDN).
    public static func problem(in text: String) -> String? {
        // The host as written: `URLComponents.host` would decode punycode. `rangeOfHost` is a
        // range of the components' own `string`.
        guard let components = URLComponents(string: text), let scheme = components.scheme,
              let written = components.string, let hostRange = components.rangeOfHost, !hostRange.isEmpty
        else {
            return "not an origin such as 'https://app.example.com'"
        }
        guard components.user == nil, components.password == nil, components.path.isEmpty,
              components.query == nil, components.fragment == nil
        else {
            return "an origin is scheme, host and port only, without user, path (not even '/'), query or fragment"
        }
        let host = String(written[hostRange])
        switch scheme.lowercased() {
        case "https":
            break
        case "http":
            guard URL.isLoopbackHost(host) else {
                return "http is allowed only to a loopback address (127.0.0.1, [::1], localhost); use https"
            }
        default:
            return "the scheme must be https (or http to a loopback address)"
        }
        if let port = components.port, !(1...65535).contains(port) {
            return "the port must be from 1 to 65535"
        }
        let canonical = serialisation(scheme: scheme, host: host, port: components.port)
        guard text.unicodeScalars.allSatisfy(\.isASCII) else {
            return "write the host as a browser sends it, in ASCII (punycode): '\(canonical)'"
        }
        guard canonical == text else {
            return "write it as a browser sends it in Origin: '\(canonical)'"
        }
        return nil
    }

    /// RFC 6454 §6.2: lower-case scheme and host, the port only when it is not the scheme's default.
    static func serialisation(scheme: String, host: String, port: Int?) -> String {
        let scheme = scheme.lowercased()
        let defaultPort = scheme == "https" ? 443 : 80
        let portPart = port.map { $0 == defaultPort ? "" : ":\($0)" } ?? ""
        return "\(scheme)://\(host.lowercased())\(portPart)"
    }
}

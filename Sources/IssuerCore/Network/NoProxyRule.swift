import Foundation

/// One entry of `NO_PROXY` (docs/reference.md, "Outbound proxy"): the hosts an outbound call
/// reaches directly, bypassing `HTTPS_PROXY` and `HTTP_PROXY`.
///
/// - `*` matches every host.
/// - A name matches that host and every subdomain: `example.com` and `.example.com` both match
///   `example.com` and `appleid.example.com` (curl's reading); case and a trailing dot are ignored.
/// - A literal address or a CIDR (`10.0.0.0/8`, `::1`, `[::1]`) matches hosts written as an address
///   in it; no name is resolved to decide.
/// - Any of these may carry a port (`example.com:443`, `[::1]:8080`), and then matches that port only.
public enum NoProxyRule: Sendable, Equatable {
    case everything
    case domain(String, port: Int?)
    case addresses(IPAddressRange, port: Int?)

    /// Parses one entry; nil when it is not one (an empty entry is skipped by the caller).
    public init?(_ entry: String) {
        var text = entry.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "*" {
            self = .everything
            return
        }
        var port: Int?
        if text.hasPrefix("[") {
            // [v6] or [v6]:port
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
            }
            text = String(text[text.index(after: text.startIndex)..<close])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            guard let value = Int(text[text.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            port = value
            text = String(text[..<colon])
        }
        if text.contains("/") || IPAddressRange.parseAddress(text) != nil {
            guard let range = IPAddressRange(cidr: text) else { return nil }
            self = .addresses(range, port: port)
            return
        }
        if text.hasPrefix("*.") { text.removeFirst(2) }
        while text.hasPrefix(".") { text.removeFirst() }
        if text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty, !text.contains(":"), !text.contains(" "), !text.contains("*") else { return nil }
        self = .domain(text, port: port)
    }

    /// Whether a call to `host` (lower case, no brackets, no trailing dot) on `port` bypasses the proxy.
    public func matches(host: String, port: Int) -> Bool {
        switch self {
        case .everything:
            return true
        case .domain(let name, let rulePort):
            guard rulePort.map({ $0 == port }) ?? true else { return false }
            return host == name || host.hasSuffix("." + name)
        case .addresses(let range, let rulePort):
            guard rulePort.map({ $0 == port }) ?? true else { return false }
            return range.contains(host)
        }
    }
}

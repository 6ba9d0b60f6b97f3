import IssuerCore
import NIOCore

/// The client's IP for sessions and rate limits. `X-Forwarded-For` is believed only when the
/// peer is a trusted proxy (`ISSUER_TRUSTED_PROXIES`), and then read from the right, skipping
/// further trusted proxies, because anything left of them was written by the client itself.
enum ClientAddress {
    static func resolve(peer: SocketAddress?, forwardedFor: String?, trusted: [IPAddressRange]) -> String? {
        guard let peerIP = peer?.ipAddress else { return nil }
        guard !trusted.isEmpty, let forwardedFor, isTrusted(peerIP, trusted) else { return peerIP }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard IPAddressRange(cidr: hop) != nil else { return peerIP }
            if !isTrusted(hop, trusted) { return hop }
        }
        return hops.first ?? peerIP
    }

    private static func isTrusted(_ address: String, _ trusted: [IPAddressRange]) -> Bool {
        trusted.contains { $0.contains(address) }
    }
}

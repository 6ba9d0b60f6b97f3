import IssuerCore
import NIOCore

/// The client's IP for sessions and rate limits: the socket's peer, handed to
/// `ForwardedFor.clientAddress`, which believes `X-Forwarded-For` only from a trusted proxy
/// (`ISSUER_TRUSTED_PROXIES`). The parsing lives there, free of NIO types, so it is tested by table
/// and fuzzed.
enum ClientAddress {
    static func resolve(peer: SocketAddress?, forwardedFor: String?, trusted: [IPAddressRange]) -> String? {
        guard let peerIP = peer?.ipAddress else { return nil }
        return ForwardedFor.clientAddress(peer: peerIP, header: forwardedFor, trusted: trusted)
    }
}

import IssuerCore

/// `X-Forwarded-For` resolution. The first line of the input is the peer's address, the rest the
/// header. Fuzzed by Fuzz/ForwardedFor, replayed on its corpus by Tests/FuzzCorpusTests.
public enum ForwardedForHarness {
    private static let trusted = ["10.0.0.0/8", "192.168.0.0/16", "127.0.0.1", "fd00::/8", "::1/128"].compactMap(IPAddressRange.init(cidr:))

    /// One input; a failed check traps, as libFuzzer expects.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let peer = String(lines[0])
        let header = lines.count == 2 ? String(lines[1]) : nil

        let client = ForwardedFor.clientAddress(peer: peer, header: header, trusted: trusted)
        // The answer is the peer itself or an address in canonical form, never other client text.
        precondition(client == peer || ForwardedFor.canonicalAddress(client) == client, "answered \(client)")
        if !trusted.contains(where: { $0.contains(peer) }) {
            precondition(client == peer, "an untrusted peer's header was believed")
        }
        if let canonical = ForwardedFor.canonicalAddress(peer) {
            precondition(ForwardedFor.canonicalAddress(canonical) == canonical, "canonical form is not stable")
        }
        // CIDR parsing round-trips through its description.
        if let range = IPAddressRange(cidr: peer) {
            precondition(IPAddressRange(cidr: range.description) == range, "CIDR round trip")
        }
    }
}

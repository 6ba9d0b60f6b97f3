#if canImport(Glibc)
import Glibc
#endif

/// `serve`'s first check (docs/reference.md, "Admin CLI"): a port already in use is one line
/// naming the address and its setting, before the key ring, the database or a migration is
/// touched. The listener binds for real later; this only asks the kernel first, so a port taken
/// in between still fails there.
enum ListenAddressCheck {
    /// Nil when `host:port` can be bound now, else the line that says why not.
    static func problem(host: String, port: Int, setting: String) -> String? {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            return nil  // an unresolvable host is the listener's own error to report
        }
        defer { freeaddrinfo(first) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // As the listener does: a port in TIME_WAIT from the previous run is free to reuse.
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 else { return nil }
        let reason = errno == EADDRINUSE ? "is already in use" : "cannot be listened on (\(String(cString: strerror(errno))))"
        return "\(setting): \(host):\(port) \(reason); stop what listens there or choose another port"
    }
}

import NIOCore

/// The request-read deadline of the test applications that listen on a socket (`.live`).
enum TestReadDeadline {
    /// Far above the 30 s default: a live test shares two cores with hundreds of others. One
    /// (`StaticRoutesLiveTests`, 217 s in a loaded run) once found its keep-alive connection
    /// closed between two of its requests ("I/O on closed channel"), and the read deadline is
    /// the only thing that closes such a connection on its own. The deadline itself is tested
    /// with limits of its own (`SlowClientTests`, the read-deadline suites).
    static let live = TimeAmount.minutes(10)
}

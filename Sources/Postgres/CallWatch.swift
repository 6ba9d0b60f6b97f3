#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What a call's deadline needs to know about the connection running it (docs/reference.md, "Faults and bad input", "the database
/// going silent").
///
/// A peer that stops answering leaves libpq blocked in `recv` for as long as the kernel keeps the
/// link, and a peer whose kernel still acknowledges (a proxy, a frozen VM) is never given up by
/// TCP keepalives at all. The only way to take that thread back is to shut the socket down under
/// it from another thread: `recv` then returns at once and libpq reports the link as broken.
/// This is the one piece of a `Connection` touched from outside its own thread, hence the lock;
/// it never touches libpq, so the one-thread-per-`PGconn` rule still holds.
final class CallWatch: Sendable {
    private struct State {
        /// The running call's deadline; nil between calls and for calls without one.
        var deadline: ContinuousClock.Instant?
        /// The socket a late call may shut down: set only while libpq is in use for the call, and
        /// cleared before `PQfinish` closes the descriptor (a reused descriptor must never be hit).
        var socket: Int32?
        var expired = false
    }

    private let state = Mutex(State())

    /// Starts watching a new call that must end by `deadline` (`expireIfDue(_:)` enforces it).
    func begin(until deadline: ContinuousClock.Instant) {
        state.withLock { state in
            state.deadline = deadline
            state.socket = nil
            state.expired = false
        }
    }

    /// Called by the pool's sweeper: if the running call is past its deadline, shut down its
    /// socket if libpq is using one, and record the expiry so the call fails even if it had not
    /// yet reached libpq. Between calls this does nothing.
    func expireIfDue(_ now: ContinuousClock.Instant) {
        state.withLock { state in
            guard let deadline = state.deadline, deadline <= now, !state.expired else { return }
            state.expired = true
            if let socket = state.socket {
                _ = shutdown(socket, Int32(SHUT_RDWR))
                state.socket = nil
            }
        }
    }

    /// The call is about to use the open link on `socket`; false if its deadline already passed.
    func arm(socket: Int32) -> Bool {
        state.withLock { state in
            if state.expired { return false }
            state.socket = socket
            return true
        }
    }

    /// The descriptor is about to be closed: a late expiry must not shut it down.
    func forgetSocket() {
        state.withLock { $0.socket = nil }
    }

    /// Ends the call; answers whether its deadline expired (its link is then unusable).
    func end() -> Bool {
        state.withLock { state in
            state.socket = nil
            state.deadline = nil
            return state.expired
        }
    }
}

import CEpoll
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
import Synchronization

/// Reads the answers of non-blocking calls (`Connection+NonBlocking.swift`) on one thread per pool,
/// so that a query costs no thread of its own.
///
/// The blocking way cost two hand-offs per query: the caller's thread woke a pool thread, which
/// blocked in libpq, and woke the caller again with the answer. Here the caller sends the
/// statement itself and suspends; this thread sleeps in `epoll_wait` on the sockets of every call
/// in flight, reads each answer as it arrives and resumes its caller. When the caller ran on a NIO
/// event loop (request handlers do under `ISSUER_TASK_EXECUTOR=event-loops`, docs/design.md,
/// "Performance"), it resumes on that same loop, where its response is then written without
/// another hop.
///
/// A socket is in the epoll set only while its call waits, and is taken out before the call's
/// step runs: a step that closes the link (and frees the descriptor number for reuse) can then
/// never leave a stale registration behind. Deadlines stay the pool's: its sweeper shuts a
/// silent call's socket down (`CallWatch`), which wakes this thread with an error to report.
final class AnswerPoller: Sendable {
    private struct Waiter: Sendable {
        let connection: Connection
        let continuation: CheckedContinuation<Result<PostgresResult, any Error>, Never>
        /// Where the caller ran, to resume it there; nil outside NIO's event loops.
        let eventLoop: (any EventLoop)?
        /// Whether part of the request still waits in libpq's buffer.
        var writing = false
    }

    private let epoll: Int32
    /// Written once by `stop()`: wakes the thread so that it ends.
    private let wake: Int32
    private let waiters = Mutex<[Int32: Waiter]>([:])
    private let stopped = Atomic<Bool>(false)

    /// Starts the thread, named `name` (at most 15 bytes, as Linux keeps thread names).
    init(name: String) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(epoll >= 0 && wake >= 0, "epoll_create1 or eventfd failed: errno \(errno)")
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wake
        precondition(epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) == 0, "epoll_ctl failed: errno \(errno)")
        let thread = Thread { [self] in
            Thread.current.name = name
            loop()
        }
        thread.start()
    }

    /// Sends the statement prepared on `connection` as `name` and waits for its answer without
    /// holding a thread. The caller holds `connection` exclusively and has armed its deadline.
    func answer(
        on connection: Connection, socket: Int32, prepared name: String, _ parameters: [any PostgresEncodable]
    ) async -> Result<PostgresResult, any Error> {
        await withCheckedContinuation { continuation in
            let progress = connection.send(prepared: name, parameters)
            var waiter = Waiter(
                connection: connection, continuation: continuation, eventLoop: MultiThreadedEventLoopGroup.currentEventLoop)
            switch progress {
            case .finished(let answer):
                continuation.resume(returning: answer)
            case .writing, .reading:
                waiter.writing = progress.isWriting
                if !watch(socket, for: waiter) {
                    connection.close()
                    continuation.resume(returning: .failure(PostgresError.unavailable("cannot wait for the database's answer")))
                }
            }
        }
    }

    /// Ends the thread once no call waits any more (the pool stops it after its calls returned).
    func stop() {
        // Under the registry's lock, so that no call registers after the thread may have ended.
        let first = waiters.withLock { _ in !stopped.exchange(true, ordering: .acquiringAndReleasing) }
        guard first else { return }
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
    }

    /// Registers `waiter` for its socket's next readiness; false once stopped.
    private func watch(_ socket: Int32, for waiter: Waiter) -> Bool {
        waiters.withLock { waiters in
            guard !stopped.load(ordering: .acquiring) else { return false }
            var event = epoll_event()
            event.events = EPOLLIN.rawValue | (waiter.writing ? EPOLLOUT.rawValue : 0)
            event.data.fd = socket
            waiters[socket] = waiter
            guard epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0 else {
                waiters[socket] = nil
                return false
            }
            return true
        }
    }

    private func loop() {
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer {
            // Nothing should wait any more (the pool stops the poller after its calls ended);
            // whatever still does is failed rather than left suspended for ever.
            let left = waiters.withLock { waiters in
                defer { waiters.removeAll() }
                return Array(waiters.values)
            }
            for waiter in left {
                waiter.connection.close()
                resume(waiter, with: .failure(PostgresError.poolClosed))
            }
            events.deallocate()
            close(epoll)
            close(wake)
        }
        while true {
            let count = epoll_wait(epoll, events, Int32(capacity), -1)
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("epoll_wait failed: errno \(errno)")
            }
            for index in 0..<Int(count) {
                let socket = events[index].data.fd
                if socket == wake { return }
                guard let waiter = take(socket) else { continue }
                step(waiter, socket: socket)
            }
        }
    }

    /// Takes the waiter of `socket` out of the set, before its step may close the descriptor.
    private func take(_ socket: Int32) -> Waiter? {
        waiters.withLock { waiters in
            guard let waiter = waiters.removeValue(forKey: socket) else { return nil }
            var unused = epoll_event()
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, &unused)
            return waiter
        }
    }

    /// Whatever woke the socket (data, room to write, an error, a shutdown by the deadline), the
    /// next step tells: libpq reports a broken link as a failed flush or read.
    private func step(_ waiter: Waiter, socket: Int32) {
        var waiter = waiter
        var progress = waiter.writing ? waiter.connection.flush() : Connection.Progress.reading
        if case .reading = progress { progress = waiter.connection.read() }
        switch progress {
        case .finished(let answer):
            resume(waiter, with: answer)
        case .reading, .writing:
            waiter.writing = progress.isWriting
            if !watch(socket, for: waiter) {
                waiter.connection.close()
                resume(waiter, with: .failure(PostgresError.unavailable("cannot wait for the database's answer")))
            }
        }
    }

    private func resume(_ waiter: Waiter, with answer: Result<PostgresResult, any Error>) {
        if let eventLoop = waiter.eventLoop {
            eventLoop.execute { waiter.continuation.resume(returning: answer) }
        } else {
            waiter.continuation.resume(returning: answer)
        }
    }
}

extension Connection.Progress {
    fileprivate var isWriting: Bool {
        if case .writing = self { return true }
        return false
    }
}

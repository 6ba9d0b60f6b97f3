import Foundation
import Logging
import NIOPosix
import Synchronization

/// A fixed-size pool of libpq connections whose blocking calls run on a dedicated thread pool.
///
/// libpq blocks its caller. Swift's cooperative pool has one thread per core, so a single blocked
/// call there would halve the server. Every call therefore hops to a `NIOThreadPool` with one
/// thread per connection, runs synchronously there with exclusive use of one `Connection`, and
/// resumes the awaiting task with the result. A caller that finds every connection busy waits
/// in FIFO order without occupying any thread.
///
/// Connections open lazily and are checked before each use: a link broken by a server restart is
/// replaced. While the server is down, a call fails fast with `PostgresError.unavailable`
/// (libpq's connect fails at once on a refused socket, and `connect_timeout` bounds the rest).
public final class ConnectionPool: Sendable {
    /// A snapshot of the pool's use, for `/metrics`.
    public struct Statistics: Sendable, Equatable {
        /// Connections in the pool, busy or idle.
        public var size: Int
        /// Connections held by a running call.
        public var inUse: Int
        /// Calls queued for a free connection.
        public var waiting: Int

        /// `ConnectionPool.statistics` builds the live snapshot; this is for tests and fakes.
        public init(size: Int, inUse: Int, waiting: Int) {
            self.size = size
            self.inUse = inUse
            self.waiting = waiting
        }
    }

    private struct State {
        var idle: [Connection]
        var inUse = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Connection, any Error>)] = []
        var nextWaiterID: UInt64 = 0
        var closed = false
    }

    /// Number of connections.
    public let size: Int
    private let threadPool: NIOThreadPool
    private let state: Mutex<State>
    private let logger: Logger

    /// - Parameters:
    ///   - conninfo: a libpq connection URI (`postgresql://…`) or key=value string.
    ///   - size: connections, and threads, in the pool.
    public init(conninfo: String, size: Int, logger: Logger = Logger(label: "issuer.postgres")) {
        precondition(size > 0, "a pool needs at least one connection")
        self.size = size
        self.logger = logger
        self.threadPool = NIOThreadPool(numberOfThreads: size)
        self.threadPool.start()
        self.state = Mutex(State(idle: (0..<size).map { _ in Connection(conninfo: conninfo) }))
    }

    /// The pool's current use.
    public var statistics: Statistics {
        state.withLock { Statistics(size: size, inUse: $0.inUse, waiting: $0.waiters.count) }
    }

    /// Runs `body` with exclusive use of one healthy connection, on the pool's own thread.
    ///
    /// `body` is synchronous on purpose: it may block, and nothing else runs on that connection
    /// until it returns. Put a whole unit of work (a transaction, a multi-statement read) in one
    /// body so that it costs one hop.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let connection = try await acquire()
        defer { release(connection) }
        do {
            return try await threadPool.runIfActive {
                try connection.ensureConnected()
                defer { connection.returnToIdle() }
                return try body(connection)
            }
        } catch is NIOThreadPoolError.ThreadPoolInactive {
            throw PostgresError.poolClosed
        }
    }

    /// Runs one statement: the common case of `withConnection`.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) async throws -> PostgresResult {
        try await withConnection { try $0.query(sql, parameters) }
    }

    /// Runs `body` in a transaction on one connection.
    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withConnection { try $0.transaction(body) }
    }

    /// Closes every connection and stops the threads. Calls in flight finish first; waiting and
    /// later calls fail with `PostgresError.poolClosed`.
    public func close() async {
        let waiters = state.withLock { state -> [CheckedContinuation<Connection, any Error>] in
            state.closed = true
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.continuation)
        }
        waiters.forEach { $0.resume(throwing: PostgresError.poolClosed) }
        // Calls in flight keep their connection until they return it; wait for them, then say
        // goodbye to the server from the pool's own threads (PQfinish writes to the socket).
        while state.withLock({ $0.inUse }) > 0 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let idle = state.withLock { state in
            defer { state.idle.removeAll() }
            return state.idle
        }
        _ = try? await threadPool.runIfActive { idle.forEach { $0.close() } }
        try? await threadPool.shutdownGracefully()
    }

    private func acquire() async throws -> Connection {
        enum Decision { case ready(Connection), wait(UInt64), closed }
        let decision = state.withLock { state -> Decision in
            if state.closed { return .closed }
            if let connection = state.idle.popLast() {
                state.inUse += 1
                return .ready(connection)
            }
            state.nextWaiterID += 1
            return .wait(state.nextWaiterID)
        }
        switch decision {
        case .ready(let connection): return connection
        case .closed: throw PostgresError.poolClosed
        case .wait(let id):
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let resumeNow = state.withLock { state -> Connection?? in
                        if state.closed { return .some(nil) }
                        // A connection may have come back between the two locks.
                        if let connection = state.idle.popLast() {
                            state.inUse += 1
                            return .some(connection)
                        }
                        state.waiters.append((id, continuation))
                        return .none
                    }
                    switch resumeNow {
                    case .none: break
                    case .some(.none): continuation.resume(throwing: PostgresError.poolClosed)
                    case .some(.some(let connection)): continuation.resume(returning: connection)
                    }
                }
            } onCancel: {
                let cancelled = state.withLock { state -> CheckedContinuation<Connection, any Error>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                cancelled?.resume(throwing: CancellationError())
            }
        }
    }

    private func release(_ connection: Connection) {
        let waiter = state.withLock { state -> CheckedContinuation<Connection, any Error>? in
            if !state.waiters.isEmpty {
                return state.waiters.removeFirst().continuation
            }
            state.inUse -= 1
            state.idle.append(connection)
            return nil
        }
        waiter?.resume(returning: connection)
    }
}

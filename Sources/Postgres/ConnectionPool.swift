import Foundation
import Logging
import NIOPosix
import Synchronization

/// A fixed-size pool of libpq connections that never blocks Swift's cooperative threads.
///
/// libpq's ordinary calls block their caller, and Swift's cooperative pool has one thread per
/// core, so a single blocked call there would halve the server. Two ways keep it free:
/// - `query(_:_:)`, one statement (every request path), goes without blocking anyone once the
///   statement is prepared on its connection: the caller sends it and suspends, and the pool's
///   `AnswerPoller` thread reads the answer and resumes it — no thread hand-off of its own.
/// - `withConnection(_:)` bodies (transactions, migrations, a statement's first use on a
///   connection, connecting) run on a `NIOThreadPool` with one thread per connection, with
///   exclusive use of one `Connection`, and resume the awaiting task with the result.
///
/// A caller that finds every connection busy waits in FIFO order without occupying any thread.
///
/// Connections open lazily and are checked before each use: a link broken by a server restart is
/// replaced. While the server is down, a call fails fast with `PostgresError.unavailable`.
///
/// A database that goes silent (docs/reference.md, "Faults and bad input": packets dropped, nothing refused) is an outage, not a
/// hang: every call has one deadline (`timeout`, 5 s by default) for waiting for a connection,
/// connecting and the answer, after which it fails with `unavailable` and a link stuck in libpq
/// is shut down and replaced; at most `maxWaiting` calls wait for a connection, and one more fails
/// at once. The server cancels a statement running past the same timeout, and TCP keepalives find
/// a dead peer within 10 s (`ConnectionParameters`).
///
/// One sweeper task per pool enforces every deadline, every `sweepInterval`: a timer task per
/// call (and per wait) cost two more jobs for the cooperative pool on every query, for an event
/// that almost never happens. A deadline is therefore kept to within one interval.
public final class ConnectionPool: Sendable {
    /// How long a call may take (`withConnection(timeLimit:_:)`).
    public enum TimeLimit: Sendable {
        /// The pool's `timeout`: everything on a request path.
        case standard
        /// No deadline and no statement timeout, for work that may rightly take long (migrations,
        /// which also wait for another process's). Waiting for a connection and connecting are
        /// still bounded by `timeout`.
        case unlimited
    }

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
        /// In arrival order; all wait as long, so their deadlines are in order too.
        var waiters: [(id: UInt64, deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Connection, any Error>)] = []
        var nextWaiterID: UInt64 = 0
        var closed = false
    }

    /// Number of connections.
    public let size: Int
    /// One call's deadline: waiting for a connection, connecting and the answer together.
    public let timeout: Duration
    /// How many calls may wait for a connection at once.
    public let maxWaiting: Int
    private let threadPool: NIOThreadPool
    private let poller = AnswerPoller(name: "pg-answers")
    /// Calls answered through the poller: how tests tell which way a call went.
    let nonBlockingCalls = Atomic<Int>(0)
    private let state: Mutex<State>
    private let logger: Logger
    /// Every connection, busy or idle: what the sweeper watches.
    private let connections: [Connection]
    private let sweeper = Mutex<Task<Void, Never>?>(nil)
    /// How often the sweeper looks for calls and waits past their deadline.
    static let sweepInterval: Duration = .milliseconds(100)

    /// - Parameters:
    ///   - conninfo: a libpq connection URI (`postgresql://…`) or key=value string.
    ///   - size: connections, and threads, in the pool.
    ///   - timeout: one call's deadline (docs/reference.md, "Faults and bad input": about 5 s), also the server's statement timeout.
    ///   - maxWaiting: calls that may wait for a free connection; beyond it a call fails at once
    ///     with `unavailable`, so requests do not pile up while the database is silent.
    public init(
        conninfo: String, size: Int, timeout: Duration = .seconds(5), maxWaiting: Int = 1024,
        logger: Logger = Logger(label: "issuer.postgres")
    ) {
        precondition(size > 0, "a pool needs at least one connection")
        precondition(timeout > .zero && maxWaiting >= 0, "a pool needs a positive timeout")
        self.size = size
        self.timeout = timeout
        self.maxWaiting = maxWaiting
        self.logger = logger
        self.threadPool = NIOThreadPool(numberOfThreads: size)
        self.threadPool.start()
        let parameters = ConnectionParameters(conninfo: conninfo, statementTimeout: timeout)
        let connections = (0..<size).map { _ in Connection(parameters: parameters, logger: logger) }
        self.connections = connections
        self.state = Mutex(State(idle: connections))
        // Weakly held, so that a pool nobody closed still goes away.
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.sweepInterval)
                guard let self else { return }
                self.sweep(now: .now)
            }
        }
        sweeper.withLock { $0 = task }
    }

    /// A pool nobody closed still ends its answer thread (its calls ended with their tasks).
    deinit {
        poller.stop()
    }

    /// Fails the calls and waits that are past their deadline.
    private func sweep(now: ContinuousClock.Instant) {
        for connection in connections { connection.watch.expireIfDue(now) }
        let expired = state.withLock { state -> [CheckedContinuation<Connection, any Error>] in
            let due = state.waiters.prefix { $0.deadline <= now }.count
            defer { state.waiters.removeFirst(due) }
            return state.waiters.prefix(due).map(\.continuation)
        }
        expired.forEach { $0.resume(throwing: Self.waitExpired) }
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
    ///
    /// With the `standard` time limit, the whole call (waiting, connecting, running `body`) ends
    /// within `timeout`, with `PostgresError.unavailable` if the database has not answered.
    public func withConnection<T: Sendable>(
        timeLimit: TimeLimit = .standard, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        let connection = try await acquire(until: deadline)
        defer { release(connection) }
        return try await run(on: connection, until: deadline, timeLimit: timeLimit, body)
    }

    /// Runs `body` on the pool's threads with `connection`, already acquired.
    private func run<T: Sendable>(
        on connection: Connection, until deadline: ContinuousClock.Instant, timeLimit: TimeLimit,
        _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        do {
            switch timeLimit {
            case .standard:
                connection.watch.begin(until: deadline)
                return try await threadPool.runIfActive {
                    try connection.run(until: deadline, body)
                }
            case .unlimited:
                return try await threadPool.runIfActive {
                    try connection.runWithoutDeadline(connectingUntil: deadline, body)
                }
            }
        } catch is NIOThreadPoolError.ThreadPoolInactive {
            throw PostgresError.poolClosed
        }
    }

    /// Runs one statement within the standard deadline. Its first use on a connection (which
    /// prepares it) and a connection that must (re)connect go through `withConnection`; every
    /// later use is sent without blocking and answered through the `AnswerPoller`.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) async throws -> PostgresResult {
        let deadline = ContinuousClock.now + timeout
        let connection = try await acquire(until: deadline)
        defer { release(connection) }
        guard let name = connection.preparedName(for: sql), let socket = connection.nonBlockingSocket else {
            return try await run(on: connection, until: deadline, timeLimit: .standard) { try $0.query(sql, parameters) }
        }
        connection.watch.begin(until: deadline)
        guard ContinuousClock.now < deadline, connection.watch.arm(socket: socket) else {
            _ = connection.watch.end()
            throw PostgresError.unavailable("no answer from the database within the deadline")
        }
        nonBlockingCalls.add(1, ordering: .relaxed)
        let answer = await poller.answer(on: connection, socket: socket, prepared: name, parameters)
        if connection.watch.end() {
            // The sweeper shut the link down: closed now, reopened by the next call.
            connection.close()
            if case .failure = answer { throw PostgresError.unavailable("no answer from the database within the deadline") }
        }
        return try answer.get()
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
        // The sweeper keeps enforcing their deadlines meanwhile: a call stuck on a silent
        // database still ends, and so does this wait.
        while state.withLock({ $0.inUse }) > 0 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        sweeper.withLock { $0?.cancel() }
        let idle = state.withLock { state in
            defer { state.idle.removeAll() }
            return state.idle
        }
        _ = try? await threadPool.runIfActive { idle.forEach { $0.close() } }
        try? await threadPool.shutdownGracefully()
        poller.stop()
    }

    private func acquire(until deadline: ContinuousClock.Instant) async throws -> Connection {
        enum Decision { case ready(Connection), wait(UInt64), full, closed }
        let maxWaiting = self.maxWaiting
        let decision = state.withLock { state -> Decision in
            if state.closed { return .closed }
            if let connection = state.idle.popLast() {
                state.inUse += 1
                return .ready(connection)
            }
            if state.waiters.count >= maxWaiting { return .full }
            state.nextWaiterID += 1
            return .wait(state.nextWaiterID)
        }
        switch decision {
        case .ready(let connection): return connection
        case .closed: throw PostgresError.poolClosed
        case .full: throw Self.queueFull(maxWaiting)
        case .wait(let id):
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let resumeNow = state.withLock { state -> Result<Connection, PostgresError>? in
                        if state.closed { return .failure(.poolClosed) }
                        // A connection may have come back between the two locks.
                        if let connection = state.idle.popLast() {
                            state.inUse += 1
                            return .success(connection)
                        }
                        // Checked under the lock the sweeper takes: a waiter added before its
                        // deadline is always found by a later sweep.
                        if ContinuousClock.now >= deadline { return .failure(Self.waitExpired) }
                        // Others may have queued between the two locks: the bound holds all the same.
                        if state.waiters.count >= maxWaiting { return .failure(Self.queueFull(maxWaiting)) }
                        state.waiters.append((id, deadline, continuation))
                        return nil
                    }
                    if let resumeNow { continuation.resume(with: resumeNow.mapError { $0 as any Error }) }
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

    private static func queueFull(_ maxWaiting: Int) -> PostgresError {
        .unavailable("\(maxWaiting) calls already wait for a database connection")
    }

    private static let waitExpired = PostgresError.unavailable("no database connection came free within the deadline")

    private func release(_ connection: Connection) {
        let now = ContinuousClock.now
        let (waiter, expired) = state.withLock { state -> (CheckedContinuation<Connection, any Error>?, [CheckedContinuation<Connection, any Error>]) in
            // Waiters past their deadline that the sweeper has not reached yet fail now: a
            // connection handed to one would only be shut down under it.
            let due = state.waiters.prefix { $0.deadline <= now }.count
            let expired = state.waiters.prefix(due).map(\.continuation)
            state.waiters.removeFirst(due)
            if !state.waiters.isEmpty {
                return (state.waiters.removeFirst().continuation, expired)
            }
            state.inUse -= 1
            state.idle.append(connection)
            return (nil, expired)
        }
        expired.forEach { $0.resume(throwing: Self.waitExpired) }
        waiter?.resume(returning: connection)
    }
}

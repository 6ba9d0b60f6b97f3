import CLibPQ
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection.
///
/// Its public methods block the calling thread, so bodies given to `ConnectionPool.withConnection`
/// run on the pool's dedicated `NIOThreadPool`. A single prepared statement instead goes without
/// blocking anyone (`Connection+NonBlocking.swift`): sent from the caller's thread, its answer read
/// by the pool's `AnswerPoller`. Either way one party at a time uses a connection: the pool hands
/// it out exclusively, and within a non-blocking call it passes from the sender to the poller
/// through the poller's registry and back through the call's continuation. That rule is what
/// makes the `@unchecked Sendable` below true.
public final class Connection: @unchecked Sendable {
    private let parameters: ConnectionParameters
    private var handle: OpaquePointer?
    private var prepared: [String: String] = [:]
    /// The answer of a non-blocking call as it arrives: its first result, kept until libpq says
    /// the call is over (`Connection+NonBlocking.swift`).
    var arriving: Result<PostgresResult, any Error>?
    /// Lets a call's deadline take the thread back from a link that went silent.
    let watch = CallWatch()
    /// Where the server's notices go (`Connection+Notices.swift`).
    let logger: Logger

    init(parameters: ConnectionParameters, logger: Logger) {
        self.parameters = parameters
        self.logger = logger
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Whether the last known state of the link is good. A broken link is replaced on next use.
    public var isHealthy: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The descriptor of the open link, if any.
    var socket: Int32? {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return nil }
        return PQsocket(handle)
    }

    /// The value libpq uses for a connection keyword on the open link (`PQconninfo`), whether the
    /// operator gave it or we did: how tests and debugging see what a session really runs with.
    func setting(_ keyword: String) -> String? {
        guard let handle, let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }

    /// Opens the link if there is none, or replaces a broken one, giving up at `deadline`.
    ///
    /// libpq's own blocking connect cannot be interrupted, and a server that accepts the TCP
    /// connection and then says nothing would hold it for `connect_timeout` per address; driving
    /// `PQconnectPoll` with `poll(2)` holds the deadline exactly.
    func ensureConnected(until deadline: ContinuousClock.Instant) throws {
        if let handle {
            if PQstatus(handle) == CONNECTION_OK { return }
            close()
        }
        let newHandle = withCStringArray(parameters.keywords) { keys in
            withCStringArray(parameters.values) { vals in
                // expand_dbname = 1: "dbname" holds a full URI or key=value string.
                PQconnectStartParams(keys, vals, 1)
            }
        }
        guard let newHandle else { throw PostgresError.unavailable("out of memory") }
        // The server's refusal carries its SQLSTATE in the message (`ConnectFailure`). A link bad
        // from the start (the first attempt runs inside the call: a missing socket fails there)
        // is judged the same way; option values libpq refuses are caught at start by
        // `ConnectionString.problem`.
        PQsetErrorVerbosity(newHandle, PQERRORS_VERBOSE)
        var polling = PGRES_POLLING_WRITING
        while true {
            if PQstatus(newHandle) == CONNECTION_BAD || polling == PGRES_POLLING_FAILED {
                let message = String(cString: PQerrorMessage(newHandle))
                PQfinish(newHandle)
                throw ConnectFailure.error(message)
            }
            if polling == PGRES_POLLING_OK {
                PQsetErrorVerbosity(newHandle, PQERRORS_DEFAULT)
                receiveNotices(on: newHandle)
                handle = newHandle
                return
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                PQfinish(newHandle)
                throw PostgresError.unavailable("no answer from the database while connecting")
            }
            // The socket may change between steps (another address, a retry without TLS).
            var descriptor = pollfd(
                fd: PQsocket(newHandle), events: Int16(polling == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: ConnectionParameters.milliseconds(remaining)))
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            polling = PQconnectPoll(newHandle)
        }
    }

    /// Closes the link now; the next use reopens it.
    func close() {
        watch.forgetSocket()
        if let handle { PQfinish(handle) }
        handle = nil
        prepared.removeAll()
    }

    /// Runs one statement with bound parameters as a named prepared statement, preparing it on
    /// first use on this connection: the hot paths then skip parsing and planning.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws -> PostgresResult {
        let handle = try liveHandle()
        let name: String
        if let existing = prepared[sql] {
            name = existing
        } else {
            name = "s\(prepared.count)"
            let result = PQprepare(handle, name, sql, Int32(parameters.count), nil)
            defer { PQclear(result) }
            try check(result, handle: handle)
            prepared[sql] = name
        }
        let encoded = parameters.map { $0.postgresParameter }
        let result = withParameters(encoded) { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(encoded.count), values, lengths, formats, 0)
        }
        defer { PQclear(result) }
        return try collect(result, handle: handle)
    }

    /// Runs SQL text that may hold several statements and takes no parameters (migrations,
    /// `BEGIN`/`COMMIT`). Never pass user input here.
    public func execute(_ sql: String) throws {
        let handle = try liveHandle()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        _ = try collect(result, handle: handle)
    }

    /// Runs `body` inside a transaction: committed if it returns, rolled back if it throws.
    public func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body(self)
            try execute("COMMIT")
            return value
        } catch {
            if isHealthy { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Leaves the connection as the next caller expects it: outside any transaction. A body that
    /// threw halfway through a transaction would otherwise hand the next caller an aborted one.
    func returnToIdle() {
        guard let handle else { return }
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE:
            return
        case PQTRANS_INTRANS, PQTRANS_INERROR:
            if (try? execute("ROLLBACK")) == nil { close() }
        default:
            // Active or unknown: the link's state cannot be trusted.
            close()
        }
    }

    /// The open link's handle, if any (the non-blocking path checks it before sending).
    var openHandle: OpaquePointer? {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return nil }
        return handle
    }

    /// The name `sql` was prepared under on this link, if it was.
    func preparedName(for sql: String) -> String? {
        prepared[sql]
    }

    private func liveHandle() throws -> OpaquePointer {
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError.unavailable("connection is not open")
        }
        return handle
    }

    private func check(_ result: OpaquePointer?, handle: OpaquePointer) throws {
        _ = try collect(result, handle: handle)
    }

    func collect(_ result: OpaquePointer?, handle: OpaquePointer) throws -> PostgresResult {
        guard let result else {
            throw failure(handle: handle, fallback: String(cString: PQerrorMessage(handle)))
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(rows: [], affectedRows: affectedRows(result))
        case PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE:
            let rowCount = Int(PQntuples(result))
            let columnCount = Int(PQnfields(result))
            let columns = PostgresColumns(names: (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) })
            var rows = [PostgresRow]()
            rows.reserveCapacity(rowCount)
            for row in 0..<Int32(rowCount) {
                var values = [String?]()
                values.reserveCapacity(columnCount)
                for column in 0..<Int32(columnCount) {
                    if PQgetisnull(result, row, column) == 1 {
                        values.append(nil)
                    } else {
                        values.append(String(cString: PQgetvalue(result, row, column)))
                    }
                }
                rows.append(PostgresRow(columns: columns, values: values))
            }
            return PostgresResult(rows: rows, affectedRows: affectedRows(result))
        default:
            let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            if let field = PQresultErrorField(result, Int32(UInt8(ascii: "C"))) {
                let state = SQLState(rawValue: String(cString: field))
                if state.isConnectionException || state == .adminShutdown { markBroken() }
                let constraint = PQresultErrorField(result, Int32(UInt8(ascii: "n"))).map { String(cString: $0) }
                throw PostgresError.server(sqlState: state, message: message, constraint: constraint)
            }
            throw failure(handle: handle, fallback: message)
        }
    }

    /// An error without a SQLSTATE comes from libpq itself: usually a lost connection.
    func failure(handle: OpaquePointer, fallback: String) -> PostgresError {
        if PQstatus(handle) != CONNECTION_OK {
            markBroken()
            return .unavailable(fallback.isEmpty ? "connection lost" : fallback)
        }
        return .server(sqlState: SQLState(rawValue: "XX000"), message: fallback)
    }

    private func markBroken() {
        close()
    }

    private func affectedRows(_ result: OpaquePointer) -> Int {
        Int(String(cString: PQcmdTuples(result))) ?? 0
    }
}

private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    var pointers: [UnsafePointer<CChar>?] = duplicates.map { UnsafePointer($0) }
    pointers.append(nil)
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

func withParameters<R>(
    _ parameters: [PostgresParameter?],
    _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
) -> R {
    // Text parameters must be NUL-terminated for libpq; binary ones are sent with their length.
    let buffers: [UnsafeMutablePointer<CChar>?] = parameters.map { parameter in
        guard let parameter else { return nil }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: parameter.bytes.count + 1)
        parameter.bytes.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress { buffer.initialize(from: base, count: chars.count) }
            }
        }
        buffer[parameter.bytes.count] = 0
        return buffer
    }
    defer { buffers.forEach { $0?.deallocate() } }
    let values: [UnsafePointer<CChar>?] = buffers.map { $0.map { UnsafePointer($0) } }
    let lengths = parameters.map { Int32($0?.bytes.count ?? 0) }
    let formats = parameters.map { Int32($0?.isBinary == true ? 1 : 0) }
    return values.withUnsafeBufferPointer { v in
        lengths.withUnsafeBufferPointer { l in
            formats.withUnsafeBufferPointer { f in
                body(v.baseAddress, l.baseAddress, f.baseAddress)
            }
        }
    }
}

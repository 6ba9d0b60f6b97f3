import CLibPQ
import Foundation

/// One libpq connection.
///
/// Every method blocks the calling thread. A `Connection` is therefore only ever used from
/// inside `ConnectionPool.withConnection`, which runs its body on the pool's dedicated
/// `NIOThreadPool`, one body per connection at a time. That rule, kept by the pool, is what makes
/// the `@unchecked Sendable` below true.
public final class Connection: @unchecked Sendable {
    private let conninfo: String
    private var handle: OpaquePointer?
    private var prepared: [String: String] = [:]

    /// Parameters every session of ours runs with: a fixed text format for timestamps and bytea,
    /// so decoding never depends on the server's configuration.
    private static let sessionOptions = "-c DateStyle=ISO -c TimeZone=UTC -c bytea_output=hex"

    init(conninfo: String) {
        self.conninfo = conninfo
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Whether the last known state of the link is good. A broken link is replaced on next use.
    public var isHealthy: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Opens the link if there is none, or replaces a broken one.
    func ensureConnected() throws {
        if let handle {
            if PQstatus(handle) == CONNECTION_OK { return }
            PQfinish(handle)
            self.handle = nil
            prepared.removeAll()
        }
        // Settings before "dbname" are defaults the operator's URL may override; "options" comes
        // after it because decoding relies on those session parameters.
        let keywords = ["connect_timeout", "application_name", "dbname", "options"]
        let values = ["3", "issuer", conninfo, Self.sessionOptions]
        let newHandle = withCStringArray(keywords) { keys in
            withCStringArray(values) { vals in
                // expand_dbname = 1: "dbname" holds a full URI or key=value string.
                PQconnectdbParams(keys, vals, 1)
            }
        }
        guard let newHandle else { throw PostgresError.unavailable("out of memory") }
        guard PQstatus(newHandle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(newHandle)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(newHandle)
            throw PostgresError.unavailable(message)
        }
        handle = newHandle
    }

    /// Closes the link now; the next use reopens it.
    func close() {
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

    private func liveHandle() throws -> OpaquePointer {
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError.unavailable("connection is not open")
        }
        return handle
    }

    private func check(_ result: OpaquePointer?, handle: OpaquePointer) throws {
        _ = try collect(result, handle: handle)
    }

    private func collect(_ result: OpaquePointer?, handle: OpaquePointer) throws -> PostgresResult {
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
                throw PostgresError.server(sqlState: state, message: message)
            }
            throw failure(handle: handle, fallback: message)
        }
    }

    /// An error without a SQLSTATE comes from libpq itself: usually a lost connection.
    private func failure(handle: OpaquePointer, fallback: String) -> PostgresError {
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

private func withParameters<R>(
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

import CLibPQ
import Foundation

/// One prepared statement without a blocked thread: libpq's asynchronous command processing
/// (PostgreSQL docs, "Asynchronous Command Processing"; `PQsendQueryPrepared`, `PQflush`,
/// `PQconsumeInput`, `PQisBusy`, `PQgetResult`). The caller sends from its own thread; the pool's
/// `AnswerPoller` calls `flush()` and `read()` when the socket is ready, until `.finished`.
///
/// Any libpq-level failure on this path closes the link: the next call opens a new one, as after
/// any broken link, rather than reasoning about a half-sent or half-read exchange.
extension Connection {
    /// Where a non-blocking call stands after a step.
    enum Progress: Sendable {
        /// Part of the request is still in libpq's buffer: go on when the socket takes more.
        case writing
        /// The answer has not all arrived: go on when the socket has more.
        case reading
        /// The call is over, with this answer; the link is back in blocking mode, outside any
        /// transaction, or closed.
        case finished(Result<PostgresResult, any Error>)
    }

    /// The descriptor to wait on for a non-blocking call; nil when the link is not open, or is
    /// encrypted with GSSAPI: libpq keeps what it decrypted of a GSS token where no call can see
    /// it, so a reader could wait on the socket for bytes already read. Such a link stays blocking.
    var nonBlockingSocket: Int32? {
        guard let handle = openHandle, PQgssEncInUse(handle) == 0 else { return nil }
        return socket
    }

    /// Sends the statement prepared on this link as `name`, without waiting for its answer.
    func send(prepared name: String, _ parameters: [any PostgresEncodable]) -> Progress {
        guard let handle = openHandle else { return .finished(.failure(PostgresError.unavailable("connection is not open"))) }
        arriving = nil
        // Only for this call: the blocking calls (`PQexec` and friends) keep their blocking mode.
        guard PQsetnonblocking(handle, 1) == 0 else { return broken(handle) }
        let encoded = parameters.map { $0.postgresParameter }
        let sent = withParameters(encoded) { values, lengths, formats in
            PQsendQueryPrepared(handle, name, Int32(encoded.count), values, lengths, formats, 0)
        }
        guard sent == 1 else { return broken(handle) }
        return flush()
    }

    /// Writes what libpq still holds of the request.
    func flush() -> Progress {
        guard let handle = openHandle else { return .finished(.failure(PostgresError.unavailable("connection lost"))) }
        switch PQflush(handle) {
        case 0: return .reading
        case 1: return .writing
        default: return broken(handle)
        }
    }

    /// Reads what the socket holds; `.finished` once libpq has every result of the call (a
    /// connection is reusable only after `PQgetResult` answered NULL).
    func read() -> Progress {
        guard let handle = openHandle else { return .finished(.failure(PostgresError.unavailable("connection lost"))) }
        // Over TLS, OpenSSL can hold decrypted bytes libpq had no room for, however many reads came
        // before (libpq 15 takes one record per read once its buffer has less room than a record),
        // and they never make the socket readable again: read on while OpenSSL holds any.
        repeat {
            guard PQconsumeInput(handle) == 1 else { return broken(handle) }
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else {
                    return end(handle, arriving ?? .failure(PostgresError.unavailable("the database sent no answer")))
                }
                // COPY never ends on its own here (PQgetResult would answer COPY results for ever):
                // a statement that starts one is refused and its link closed.
                if Self.isCopy(PQresultStatus(result)) {
                    PQclear(result)
                    close()
                    return finished(.failure(PostgresError.server(
                        sqlState: SQLState(rawValue: "0A000"), message: "COPY is not supported on this path")))
                }
                if arriving == nil { arriving = Result { try collect(result, handle: handle) } }
                PQclear(result)
                // An error that means the link is gone closed it inside `collect`.
                guard openHandle == handle else { return finished(arriving!) }
            }
        } while issuer_PQsslPending(handle) > 0
        return .reading
    }

    private static func isCopy(_ status: ExecStatusType) -> Bool {
        status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH
    }

    /// The call is over: blocking mode again, and the link kept only if it is idle (checked
    /// first, so that closing never waits on a flush in blocking mode).
    private func end(_ handle: OpaquePointer, _ answer: Result<PostgresResult, any Error>) -> Progress {
        if PQtransactionStatus(handle) != PQTRANS_IDLE || PQsetnonblocking(handle, 0) != 0 { close() }
        return finished(answer)
    }

    private func broken(_ handle: OpaquePointer) -> Progress {
        let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
        let error = failure(handle: handle, fallback: message)
        close()
        return finished(.failure(error))
    }

    private func finished(_ answer: Result<PostgresResult, any Error>) -> Progress {
        arriving = nil
        return .finished(answer)
    }
}

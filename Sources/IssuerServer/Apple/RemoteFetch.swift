import AsyncHTTPClient
import Foundation
import IssuerCore
import NIOCore
import NIOHTTP1
import Synchronization

/// One HTTP exchange with a remote party (Apple's JWKS, token and revoke endpoints) under
/// docs/reference.md, "Faults and bad input" and docs/design.md, "Apple and remote parties": one deadline for the whole exchange, the body included; a cap on
/// the body; no redirect followed; `https` only, or plain `http` to loopback.
///
/// AsyncHTTPClient's own deadline ends when the response head arrives, so a body trickled a byte
/// at a time would hold every waiter; here the exchange runs in a child task that is cancelled at
/// the deadline, which closes the connection.
struct RemoteFetch: Sendable {
    /// What came back: any status but a redirect, and the complete body.
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer
    }

    /// The configuration of every client for remote parties (`RemoteHTTPClients`): never follows
    /// a redirect and never decompresses (a compressed body would get around the cap).
    static var clientConfiguration: HTTPClient.Configuration {
        HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(5)),
            decompression: .disabled)
    }

    /// docs/reference.md, "Outbound proxy": which proxy each URL goes through, if any.
    var proxy: OutboundProxy = .direct
    /// The clients, direct and proxied, the process shares.
    var clients: RemoteHTTPClients = .shared
    /// docs/reference.md, "Faults and bad input": 5 seconds for the whole exchange.
    var timeout: Duration = .seconds(5)
    var maximumBodySize = 1024 * 1024

    /// Sends `request` and reads the whole answer, or throws `RemoteFetchError`.
    func execute(_ request: HTTPClientRequest) async throws(RemoteFetchError) -> Response {
        guard let url = URL(string: request.url), url.isSecureOrLoopback else { throw .insecureURL }
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let client = clients.client(through: proxy.server(for: url)), limit = maximumBodySize, timeout = timeout
        do {
            return try await Self.race(timeout: timeout) {
                try await Self.exchange(request, client: client, deadline: deadline, limit: limit)
            }
        } catch let error as RemoteFetchError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .tooLarge(limit: limit)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout
            || error == .connectTimeout || error == .cancelled {
            throw .timedOut
        } catch {
            throw .transport(String(describing: error))
        }
    }

    /// Runs `work`, answering its result or `timedOut` after `timeout`, whichever comes first.
    /// Unlike a task group, the caller does not wait for a cancelled exchange to wind down: a
    /// body trickled by a hostile server may not notice cancellation until its next byte, and
    /// every request waiting on Apple would wait with it.
    private static func race(
        timeout: Duration, _ work: @escaping @Sendable () async throws -> Response
    ) async throws -> Response {
        let outcome = FirstOutcome()
        let exchange = Task {
            do {
                outcome.settle(.success(try await work()))
            } catch {
                outcome.settle(.failure(error))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            outcome.settle(.failure(RemoteFetchError.timedOut))
        }
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            outcome.settle(.failure(RemoteFetchError.timedOut))
        }
        exchange.cancel()
        timer.cancel()
        return try result.get()
    }

    private static func exchange(
        _ request: HTTPClientRequest, client: HTTPClient, deadline: NIODeadline, limit: Int
    ) async throws -> Response {
        let response = try await client.execute(request, deadline: deadline)
        let status = Int(response.status.code)
        guard !(300..<400).contains(status) else { throw RemoteFetchError.redirected(status: status) }
        if let announced = response.headers.first(name: "Content-Length").flatMap(Int.init), announced > limit {
            throw RemoteFetchError.tooLarge(limit: limit)
        }
        let body = try await response.body.collect(upTo: limit)
        return Response(status: status, headers: response.headers, body: body)
    }
}

/// The first of several results, delivered once to one waiter.
private final class FirstOutcome: Sendable {
    private struct State {
        var result: Result<RemoteFetch.Response, any Error>?
        var waiter: CheckedContinuation<Result<RemoteFetch.Response, any Error>, Never>?
    }

    private let state = Mutex(State())

    func settle(_ result: Result<RemoteFetch.Response, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<RemoteFetch.Response, any Error>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    var value: Result<RemoteFetch.Response, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<RemoteFetch.Response, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

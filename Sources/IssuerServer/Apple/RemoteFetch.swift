import AsyncHTTPClient
import Foundation
import IssuerCore
import NIOCore
import NIOHTTP1

/// One HTTP exchange with a remote party (Apple's JWKS, token and revoke endpoints) under
/// SPEC §7 and ARCHITECTURE §6: one deadline for the whole exchange, the body included; a cap on
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

    /// The process's client for remote parties: never follows a redirect and never decompresses
    /// (a compressed body would get around the cap). A global that lives as long as the process,
    /// as `HTTPClient.shared` does, whose configuration follows redirects.
    static let sharedClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)

    static var clientConfiguration: HTTPClient.Configuration {
        HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(5)),
            decompression: .disabled)
    }

    var client: HTTPClient = Self.sharedClient
    /// SPEC §7: 5 seconds for the whole exchange.
    var timeout: Duration = .seconds(5)
    var maximumBodySize = 1024 * 1024

    /// Sends `request` and reads the whole answer, or throws `RemoteFetchError`.
    func execute(_ request: HTTPClientRequest) async throws(RemoteFetchError) -> Response {
        guard let url = URL(string: request.url), url.isSecureOrLoopback else { throw .insecureURL }
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let client = client, limit = maximumBodySize, timeout = timeout
        do {
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask {
                    try await Self.exchange(request, client: client, deadline: deadline, limit: limit)
                }
                group.addTask {
                    // Cancelled early when the exchange ends first; either way, nil means "time".
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                // A cancelled body stream can end early without an error: only an answer that
                // finished before the timer counts.
                guard let first = try await group.next(), let response = first else { throw RemoteFetchError.timedOut }
                return response
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

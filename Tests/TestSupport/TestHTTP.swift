import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Plain HTTP requests to a server on loopback (another process, or a live in-process server),
/// through AsyncHTTPClient. Every request says `Connection: close`, so that no pooled
/// connection outlives the server a test stops. Tests that need malformed or slow bytes on
/// the wire use `TrickleClient` or `LoopbackSocket` instead.
public enum TestHTTP {
    /// The status code of `GET path` on 127.0.0.1:`port`, or nil if nothing answered.
    public static func status(port: Int, path: String) async -> Int? {
        await get(port: port, path: path)?.status
    }

    /// `GET path` on 127.0.0.1:`port`: the status and the body, or nil if nothing answered.
    public static func get(port: Int, path: String) async -> (status: Int, body: String)? {
        await send(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"))
    }

    /// `POST path` with a JSON body on 127.0.0.1:`port`: the status and the body, or nil if
    /// nothing answered.
    public static func post(port: Int, path: String, json: Data) async -> (status: Int, body: String)? {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: json))
        return await send(request)
    }

    /// `method path` on 127.0.0.1:`port` with `headers` and an optional `body`: the status, the
    /// answer's headers and its body, or nil if nothing answered.
    public static func request(
        port: Int, path: String, method: HTTPMethod, headers: [(String, String)], body: Data? = nil
    ) async -> (status: Int, headers: HTTPHeaders, body: String)? {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(contentsOf: headers)
        request.headers.replaceOrAdd(name: "Connection", value: "close")
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            // Only bounds a hang: a request to a server starved by the tests beside it may take seconds.
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            let answer = try await response.body.collect(upTo: 16 * 1024 * 1024)
            return (Int(response.status.code), response.headers, String(buffer: answer))
        } catch {
            return nil
        }
    }

    /// Polls `GET path` every 100 ms, at most `attempts` times, until it answers 200 (a child
    /// process or listener starting up); answers whether it did.
    public static func waitUntilOK(port: Int, path: String, attempts: Int = 600) async -> Bool {
        for _ in 0..<attempts {
            if await status(port: port, path: path) == 200 { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Sends `request` and reads the whole answer, within 5 seconds; nil on any failure
    /// (refused, reset, timed out), which is what callers polling for readiness want.
    private static func send(_ request: HTTPClientRequest) async -> (status: Int, body: String)? {
        var request = request
        request.headers.replaceOrAdd(name: "Connection", value: "close")
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
            let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
            return (Int(response.status.code), String(buffer: body))
        } catch {
            return nil
        }
    }
}

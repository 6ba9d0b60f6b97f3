import AsyncHTTPClient
import Foundation
import IssuerCore
@testable import IssuerServer
import Testing
import TestSupport

/// docs/reference.md, "Faults and bad input": whatever Apple's JWKS endpoint answers is a JWK Set or a failed fetch, within one
/// deadline for the whole exchange, and never a crash. A hand-written loopback server plays the
/// misbehaving endpoint.
@Suite("Remote fetches: one deadline, a cap, no redirects (reference: Faults and bad input)", .timeLimit(.minutes(1)))
struct JWKSFetchHardeningTests {
    let jwks = String(decoding: try! FakeAppleKeys().jwksJSON, as: UTF8.self)

    func fetcher(timeout: Duration = .seconds(5)) -> HTTPJWKSFetcher {
        HTTPJWKSFetcher(fetch: RemoteFetch(timeout: timeout))
    }

    func url(_ server: ScriptedHTTPServer, _ path: String = "/auth/keys") -> URL {
        URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }

    func failure(_ operation: () async throws -> JWKSDocument) async -> RemoteFetchError? {
        do {
            _ = try await operation()
            return nil
        } catch {
            return error as? RemoteFetchError
        }
    }

    @Test("A JWKS answered with Cache-Control: max-age=300, (an empty list element) is fetched")
    func emptyCacheControlElement() async throws {
        let body = jwks
        let server = try ScriptedHTTPServer { _, send in
            _ = send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: max-age=300, \r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        }
        defer { server.stop() }
        let document = try await fetcher().fetchJWKS(from: url(server))
        #expect(document.maxAge == 300)
        #expect(String(decoding: document.body, as: UTF8.self) == body)
    }

    @Test("Several Cache-Control lines are one list (RFC 9110 §5.3)")
    func cacheControlLines() async throws {
        let body = jwks
        let server = try ScriptedHTTPServer { _, send in
            _ = send("HTTP/1.1 200 OK\r\nCache-Control: public\r\nCache-Control: no-cache\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        }
        defer { server.stop() }
        #expect(try await fetcher().fetchJWKS(from: url(server)).maxAge == 0)
    }

    @Test("A body trickled past the deadline fails the fetch at the deadline, not when the body ends")
    func trickledBody() async throws {
        let server = try ScriptedHTTPServer { _, send in
            guard send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 300\r\n\r\n{") else { return }
            // 300 bytes at 10 a second: 30 s for the whole body.
            for _ in 0..<299 {
                Thread.sleep(forTimeInterval: 0.1)
                guard send(" ") else { return }
            }
        }
        defer { server.stop() }
        let started = ContinuousClock.now
        let error = await failure { try await fetcher(timeout: .milliseconds(500)).fetchJWKS(from: url(server)) }
        let elapsed = ContinuousClock.now - started
        #expect(error == .timedOut)
        // Generous: the deadline is 0.5 s, the body would take 30 s.
        #expect(elapsed < .seconds(10))
    }

    @Test("A redirect is a failed fetch, and its target is never requested")
    func redirect() async throws {
        let body = jwks
        let server = try ScriptedHTTPServer { path, send in
            if path == "/auth/keys" {
                _ = send("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            } else {
                _ = send("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
        }
        defer { server.stop() }
        let error = await failure { try await fetcher().fetchJWKS(from: url(server)) }
        #expect(error == .redirected(status: 302))
        #expect(server.requestedPaths == ["/auth/keys"])
    }

    @Test("A body announced over the cap fails at once, without waiting for it")
    func announcedHugeBody() async throws {
        let server = try ScriptedHTTPServer { _, send in
            guard send("HTTP/1.1 200 OK\r\nContent-Length: \(64 * 1024 * 1024)\r\n\r\n{\"keys\":[") else { return }
            // Then nothing more for a long while: only the announced length can end this early.
            for _ in 0..<300 where send("") { Thread.sleep(forTimeInterval: 0.1) }
        }
        defer { server.stop() }
        let error = await failure { try await fetcher(timeout: .seconds(30)).fetchJWKS(from: url(server)) }
        #expect(error == .tooLarge(limit: 1024 * 1024))
    }

    @Test("A streamed body over the cap fails the fetch")
    func streamedHugeBody() async throws {
        let server = try ScriptedHTTPServer { _, send in
            guard send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n") else { return }
            let chunk = String(repeating: " ", count: 64 * 1024)
            for _ in 0..<64 where send(chunk) {}
        }
        defer { server.stop() }
        // A deadline far past what reading 1 MiB takes, so that only the cap can end the fetch: with
        // the default 5 s, a loaded machine running the whole suite once reached the deadline first.
        let error = await failure { try await fetcher(timeout: .seconds(30)).fetchJWKS(from: url(server)) }
        #expect(error == .tooLarge(limit: 1024 * 1024))
    }

    @Test("Plain http to a host that is not loopback is refused before any connection")
    func plainHTTPElsewhere() async {
        let error = await failure { try await fetcher().fetchJWKS(from: URL(string: "http://appleid.apple.com/auth/keys")!) }
        #expect(error == .insecureURL)
    }

    @Test("The client for remote parties follows no redirect and decompresses nothing")
    func clientConfiguration() {
        let configuration = RemoteFetch.clientConfiguration
        #expect(String(describing: configuration.redirectConfiguration) == String(describing: HTTPClient.Configuration.RedirectConfiguration.disallow))
        #expect(String(describing: configuration.decompression) == String(describing: HTTPClient.Decompression.disabled))
    }
}

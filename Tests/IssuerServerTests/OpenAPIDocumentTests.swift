import Foundation
@testable import IssuerServer
import Testing

/// Issue 13: docs/openapi.yaml describes exactly the routes the server serves. The document's
/// layout is fixed (a path is a two-space key under `paths:`, a method a four-space key under
/// its path), so a few lines of reading stand in for a YAML parser.
@Suite("The OpenAPI document")
struct OpenAPIDocumentTests {
    static let documentFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml")

    static let httpMethods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// "METHOD path" for every operation in the document.
    static func documentedOperations(_ text: String) -> Set<String> {
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" "), !line.isEmpty, !line.hasPrefix("#") {
                inPaths = line == "paths:"
                path = nil
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   ") {
                path = key(line.dropFirst(2))
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), let method = key(line.dropFirst(4)),
                      httpMethods.contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    /// "METHOD path" for every operation that documents the response `status` (an eight-space
    /// `'429':` key under its `responses:`).
    static func operations(documenting status: Int, in text: String) -> Set<String> {
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        var operation: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" "), !line.isEmpty, !line.hasPrefix("#") {
                inPaths = line == "paths:"
                (path, operation) = (nil, nil)
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   ") {
                (path, operation) = (key(line.dropFirst(2)), nil)
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), let method = key(line.dropFirst(4)) {
                operation = httpMethods.contains(method) ? "\(method.uppercased()) \(path)" : nil
            } else if let operation, line == "        '\(status)':" {
                operations.insert(operation)
            }
        }
        return operations
    }

    /// `get` in `get:` or `get: {}`.
    static func key(_ text: Substring) -> String? {
        text.firstIndex(of: ":").map { String(text[..<$0]) }
    }

    @Test("its paths and methods are the route table's (with the path of ISSUER_URL stripped)")
    func pathsEqualRouteTable() throws {
        let document = try String(contentsOf: Self.documentFile, encoding: .utf8)
        let documented = Self.documentedOperations(document)
        let served = Set(Route.allCases.flatMap { route in
            route.methods.map { "\($0.rawValue) \(route.registeredPath(prefix: ""))" }
        })
        #expect(!documented.isEmpty)
        #expect(documented.subtracting(served).sorted() == [], "documented but not served")
        #expect(served.subtracting(documented).sorted() == [], "served but not documented")
    }

    @Test("429 is documented on exactly the rate-limited routes' operations (ISSUER_RATE_LIMIT)")
    func rateLimitedDocumented() throws {
        let document = try String(contentsOf: Self.documentFile, encoding: .utf8)
        let limited = Set(Route.allCases.filter(\.isRateLimited).flatMap { route in
            route.methods.map { "\($0.rawValue) \(route.registeredPath(prefix: ""))" }
        })
        let documented = Self.operations(documenting: 429, in: document)
        #expect(!limited.isEmpty)
        #expect(limited.subtracting(documented).sorted() == [], "rate limited but no 429 documented")
        #expect(documented.subtracting(limited).sorted() == [], "429 documented but not rate limited")
    }

    @Test("the reader sees paths and methods, and nothing else")
    func readerReadsLayout() {
        let sample = """
            openapi: 3.1.0
            paths:
              /a:
                get:
                  responses:
                    '200':
                      description: x
                parameters: []
                post:
                  requestBody: {}
              /b/{id}:
                delete: {}
            components:
              schemas:
                get:
                  type: object
            """
        #expect(Self.documentedOperations(sample) == ["GET /a", "POST /a", "DELETE /b/{id}"])
    }
}

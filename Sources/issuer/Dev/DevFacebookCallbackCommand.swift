import ArgumentParser
import AsyncHTTPClient
import DevSigner
import Foundation
import NIOCore

/// `issuer dev facebook callback deauthorize|data-deletion`: plays Facebook calling the issuer's
/// callbacks, a form `POST` with a `signed_request` signed with the dev app secret
/// (``DevSigner/facebookSignedRequest(userID:issuedAt:secret:)``), and prints what the issuer
/// answered. Exits 1 when the answer is not a success, 4 when the issuer did not answer.
struct DevFacebookCallbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callback",
        abstract: "Post a signed deauthorize or data-deletion request to an issuer, as Facebook does (development only).")

    enum Callback: String, ExpressibleByArgument, CaseIterable {
        /// The user removed the app in their Facebook settings.
        case deauthorize
        /// The user asked for the data the app got from Facebook to be deleted.
        case dataDeletion = "data-deletion"
    }

    @Argument(help: "Which callback: deauthorize (the user removed the app) or data-deletion (the user asked for their data to be deleted).")
    var callback: Callback

    @Option(name: .customLong("user-id"), help: "The app-scoped Facebook user id (`user_id`), e.g. \(DevSigner.facebookUsers[0]).")
    var userID: String

    @Option(help: "The issuer to call (default: ISSUER_URL, else http://127.0.0.1:8080).")
    var issuerURL: String?

    @Option(help: "The id of the issuer's facebook provider.")
    var provider = "facebook"

    @Option(help: "The request's issued_at, in Unix seconds (default now).")
    var issuedAt: Int?

    /// The answer is a short JSON object; no more of it is read.
    static let maximumAnswerSize = 64 * 1024

    func validate() throws {
        guard !userID.isEmpty else { throw ValidationError("--user-id must not be empty") }
        let pathSafe = provider.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }
        guard !provider.isEmpty, provider.allSatisfy(\.isASCII), pathSafe else {
            throw ValidationError("--provider must be a provider id (letters, digits, - and _)")
        }
        guard issuedAt.map({ $0 >= 0 }) ?? true else { throw ValidationError("--issued-at must not be negative") }
        guard let url = URL(string: issuer), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--issuer-url must be an http or https URL")
        }
    }

    /// The issuer's base URL, without a trailing slash.
    var issuer: String {
        let base = issuerURL ?? ProcessInfo.processInfo.environment["ISSUER_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://127.0.0.1:8080"
        return base.hasSuffix("/") ? String(base.dropLast()) : base
    }

    func run() async throws {
        let endpoint = issuer + "/auth/\(provider)/\(callback.rawValue)"
        let issued = issuedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        let signedRequest = try DevSigner.facebookSignedRequest(userID: userID, issuedAt: issued)
        // Base64url and `.` need no percent-encoding in a form.
        let form = "signed_request=" + signedRequest
        print("POST \(endpoint)\n\(form)")
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: form))
        let status: Int, body: String
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            status = Int(response.status.code)
            body = String(buffer: try await response.body.collect(upTo: Self.maximumAnswerSize))
        } catch {
            throw CommandFailure.unavailable("\(endpoint) did not answer: \(error)")
        }
        print("\(status)\n\(body)")
        guard (200..<300).contains(status) else { throw CommandFailure.failed("the issuer answered \(status)") }
    }
}

import DevSigner
import Foundation
import NIOCore

/// Exchange request bodies for `--users` distinct Apple users, each with an Apple-shaped identity
/// token signed by the dev key of the server under test.
///
/// Minted before the clock starts: the client shares the machine with the server, and a client
/// that signed during the run would take CPU from the server it measures. Reusing a token is
/// legitimate (docs/reference.md, "Native sign-in": a retried exchange must still work), and each use signs in again.
struct AppleTokenPool: Sendable {
    /// The identity tokens, one per user.
    let tokens: [String]
    /// Each token as an exchange request body.
    let bodies: [ByteBuffer]

    /// - Parameter validFor: seconds the tokens must stay valid; by default the run's length and
    ///   ten minutes more.
    init(_ options: LoadOptions, validFor: Double? = nil) throws {
        let directory = URL(fileURLWithPath: options.devAppleDir)
        let keyFile = directory.appendingPathComponent(DevSigner.keyFileName).path
        // Never create a key here: a fresh key would be one the server under test does not trust.
        guard FileManager.default.fileExists(atPath: keyFile) else {
            throw BenchError("no dev Apple key at \(keyFile): start `issuer dev apple` there first")
        }
        let signer = try DevSigner(directory: directory)
        let run = UUID().uuidString.prefix(8).lowercased()
        // Valid for the whole run, however long it is asked to be.
        let lifetime = validFor ?? (600 + options.warmup + options.seconds)
        tokens = try (0..<options.users).map { index in
            try signer.identityToken(
                subject: "000000.bench\(run).\(index)", email: "bench-\(index)@privaterelay.appleid.com",
                audience: options.audience, lifetime: lifetime)
        }
        bodies = try tokens.map {
            ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["id_token": $0, "client_id": options.clientId]))
        }
    }

    /// The body for a worker's `n`th request: workers walk the pool in disjoint strides.
    func body(worker: Int, request: Int, workers: Int) -> ByteBuffer {
        bodies[(worker + request * workers) % bodies.count]
    }
}

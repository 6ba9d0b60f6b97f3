import ArgumentParser
import DevSigner
import Foundation
import IssuerCore
import JOSE

/// `issuer-bench proof`: what checking a DPoP proof (RFC 9449 §4.3) costs Issuer, set beside the one
/// ES256 verification inside it, both in process on one thread (docs/reference.md, "DPoP").
///
/// The end-to-end figure of `scripts/bench` (a bound refresh against an unbound one) divides two
/// processes' CPU ticks by the refreshes, which on a shared two-core machine varies by more than a
/// verification costs between rounds; this one isolates the proof's checks. Alternated rounds, each
/// side's best kept, as `scripts/bench` compares openssl with the signer.
struct ProofCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proof",
        abstract: "DPoP proof checks vs one ES256 verification, in process, one thread.")

    @Option(help: "Seconds per measurement.")
    var seconds: Double = 2

    @Option(help: "Alternated rounds; the best of each side is kept.")
    var rounds = 3

    func validate() throws {
        guard seconds > 0, rounds > 0 else { throw ValidationError("--seconds and --rounds must be positive") }
    }

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("issuer-bench-device-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = try DevDeviceKey(directory: directory)
        let url = "https://issuer.example/oauth2/token"
        // Distinct proofs (each its own jti and signature), all issued now: the verifier's iat window is
        // 60 s, far longer than the rounds.
        let proofs = try (0..<512).map { _ in try device.proof(method: "POST", url: url) }
        let verifier = DPoPProofVerifier(clock: SystemClock())
        // The bare verification: JOSE's ES256 check of each proof's signature over its signing input
        // with its key, nothing parsed per call.
        let signed = try proofs.map { proof -> (key: P256PublicKey, signature: Data, input: [UInt8]) in
            let segments = proof.split(separator: ".")
            let header = try JSONDecoder().decode(ProofHeader.self, from: Base64URL.decode(segments[0]) ?? Data())
            guard let signature = Base64URL.decode(segments[2]) else { throw BenchError("proof without a signature") }
            return (try P256PublicKey(jwk: header.jwk), signature, Array((segments[0] + "." + segments[1]).utf8))
        }
        let check: @Sendable (Int) -> Void = { index in
            // `try!`: a refused proof here is a broken benchmark, not a result.
            _ = try! verifier.verify(proofs[index % proofs.count], method: "POST", url: url)
        }
        let verify: @Sendable (Int) -> Void = { index in
            let (key, signature, input) = signed[index % signed.count]
            precondition(key.verify(signature: signature, message: input))
        }
        // One step of the check on its own, both ways: the claims as the check reads them (plain,
        // without JSONDecoder) and as JSONDecoder reads them, which it did before.
        let payloads = try proofs.map { proof -> Data in
            guard let payload = Base64URL.decode(proof.split(separator: ".")[1]) else { throw BenchError("proof without a payload") }
            return payload
        }
        let readPlain: @Sendable (Int) -> Void = { index in
            _ = try! DPoPProofClaims.read(payloads[index % payloads.count])
        }
        let readDecoder: @Sendable (Int) -> Void = { index in
            _ = try! JSONDecoder().decode(DPoPProofClaims.self, from: payloads[index % payloads.count])
        }
        for index in 0..<proofs.count { check(index); verify(index); readPlain(index); readDecoder(index) }
        var best = (check: Double.infinity, verify: Double.infinity, plain: Double.infinity, decoder: Double.infinity)
        for round in 1...rounds {
            best.check = min(best.check, Self.microseconds(seconds: seconds, work: check))
            best.verify = min(best.verify, Self.microseconds(seconds: seconds, work: verify))
            best.plain = min(best.plain, Self.microseconds(seconds: seconds / 4, work: readPlain))
            best.decoder = min(best.decoder, Self.microseconds(seconds: seconds / 4, work: readDecoder))
            print(String(
                format: "  round %d: proof check %.1f µs, ES256 verification %.1f µs; "
                    + "its claims read %.2f µs, by JSONDecoder %.2f µs (best so far)",
                round, best.check, best.verify, best.plain, best.decoder))
        }
        print(String(
            format: "RESULT mode=proof check_us=%.1f es256_us=%.1f extra_us=%.1f claims_us=%.2f claims_decoder_us=%.2f",
            best.check, best.verify, best.check - best.verify, best.plain, best.decoder))
    }

    private struct ProofHeader: Decodable {
        var jwk: JWK
    }

    /// CPU microseconds per call of `work` on this thread, over `seconds` of wall time.
    static func microseconds(seconds: Double, work: (Int) -> Void) -> Double {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let before = SignCommand.processCPUSeconds()
        var count = 0
        while ContinuousClock.now < end {
            work(count)
            count += 1
        }
        return (SignCommand.processCPUSeconds() - before) * 1e6 / Double(count)
    }
}

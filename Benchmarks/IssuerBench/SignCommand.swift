import ArgumentParser
import Foundation
import IssuerCore
import JOSE
import Synchronization

/// `issuer-bench sign`: RS256 signatures per second of `TokenSigner`, one access token (one
/// signature: the scope has no `openid`, so no ID token) per mint, on 1 and on 2 threads.
///
/// Dedicated threads rather than tasks, so that "2" means two signers on two cores whatever else
/// the cooperative pool is doing; the CPU time the process used is printed next to the rate as
/// evidence (2 threads in parallel use about 2 CPU-seconds per second).
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "RS256 signs/s of TokenSigner with 1 and 2 concurrent threads.")

    @Option(help: "Seconds per measurement.")
    var seconds: Double = 5

    @Option(help: "Comma-separated thread counts to measure.")
    var threads = "1,2"

    func validate() throws {
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
        guard !threadCounts.isEmpty, threadCounts.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--threads must be positive whole numbers, e.g. 1,2")
        }
    }

    private var threadCounts: [Int] {
        threads.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("issuer-bench-ring-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A real ring on disk, made the way `issuer keys init` makes it.
        let ring = try KeyRotation(
            store: KeyRingDirectory(directory: directory),
            policy: KeyRotationPolicy(longestTokenLifetime: .seconds(3600), reloadInterval: .seconds(5)), clock: SystemClock()
        ).initialize().ring
        let signer = TokenSigner(issuer: "http://127.0.0.1:8080", audience: "clanboards-mobile", accessTokenTTL: .seconds(3600), idTokenTTL: .seconds(3600), clock: SystemClock())
        let contents = TokenContents(
            subject: UUID().uuidString.lowercased(), clientID: "clanboards-mobile", scopes: ["email", "profile"],
            sessionID: UUID().uuidString.lowercased(), authTime: Date(), sessionExpiresAt: Date().addingTimeInterval(86_400),
            profile: .init(email: "bench@privaterelay.appleid.com", emailVerified: true, name: "Bench Mark"))
        let mint: @Sendable () -> Void = {
            // `try!`: a failure here is a broken benchmark, not a result to report.
            _ = try! signer.sign(contents, ring: ring)
        }
        for _ in 0..<200 { mint() }  // warm caches and OpenSSL's lazy initialisation
        print("TokenSigner, RS256 2048-bit, one signature per mint, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        for count in threadCounts {
            let result = Self.measure(threads: count, seconds: seconds, work: mint)
            Self.report(result, threads: count)
            print(String(format: "RESULT mode=sign threads=%d rate=%.1f", count, Double(result.operations) / result.wall))
        }
        guard raw else { return }
        // The same signature without the JWT around it: what TokenSigner adds (JSON, base64url,
        // the jti) is the difference between the two rates.
        let key = ring.active!.privateKey
        let message = Array(try signer.sign(contents, ring: ring).accessToken.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        let sign: @Sendable () -> Void = { _ = try! key.sign(message) }
        print("RSAPrivateKey.sign alone, same signing input")
        for count in threadCounts {
            Self.report(Self.measure(threads: count, seconds: seconds, work: sign), threads: count)
        }
    }

    @Flag(help: "Also measure RSAPrivateKey.sign alone, to see what TokenSigner adds.")
    var raw = false

    static func report(_ result: Measurement, threads count: Int) {
        let rate = Double(result.operations) / result.wall
        print(String(format: "  %d thread%@: %8.1f signs/s  (%d in %.2f s, CPU %.2f cores)",
                     count, count == 1 ? " " : "s", rate, result.operations, result.wall, result.cpu / result.wall))
    }

    struct Measurement {
        var operations: Int
        var wall: Double
        var cpu: Double
    }

    /// Runs `work` in a loop on `threads` threads that start together and stop at one deadline.
    static func measure(threads: Int, seconds: Double, work: @escaping @Sendable () -> Void) -> Measurement {
        let counts = Mutex([Int](repeating: 0, count: threads))
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let deadline = Mutex(ContinuousClock.now)
        for index in 0..<threads {
            done.enter()
            let thread = Thread {
                ready.signal()
                go.wait()
                let end = deadline.withLock { $0 }
                var count = 0
                while ContinuousClock.now < end {
                    work()
                    count += 1
                }
                counts.withLock { $0[index] = count }
                done.leave()
            }
            thread.start()
        }
        for _ in 0..<threads { ready.wait() }
        let cpuBefore = processCPUSeconds()
        let start = ContinuousClock.now
        deadline.withLock { $0 = start + .milliseconds(Int(seconds * 1000)) }
        for _ in 0..<threads { go.signal() }
        done.wait()
        let wall = (ContinuousClock.now - start).timeInterval
        return Measurement(operations: counts.withLock { $0.reduce(0, +) }, wall: wall, cpu: processCPUSeconds() - cpuBefore)
    }

    /// User plus system CPU time of this process so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }
}

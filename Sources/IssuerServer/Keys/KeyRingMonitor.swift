import Foundation
import IssuerCore
import Logging
import NIOPosix
import ServiceLifecycle
import UnixSignals
import Synchronization

/// Keeps the server's view of the key ring current (docs/reference.md, "Signing keys"): re-reads `ISSUER_KEYS_DIR` every
/// `ISSUER_KEYS_RELOAD_SECONDS` and at once on SIGHUP, swaps the new ring in atomically, and
/// keeps the previous ring (with an error in the log) when the directory holds an invalid one —
/// or none at all while a ring is in use (docs/reference.md, "Faults and bad input": an unmounted volume is a failed load, not an
/// instruction to stop signing and empty the JWKS).
///
/// Before it signs with a ring it records this server's ``SignerTiming`` in it (when the ring
/// does not already cover it), so that `issuer keys prune` run anywhere keeps retired keys
/// published for as long as this server's tokens live (docs/reference.md, "Signing keys").
///
/// Readers take the current `PublishedKeys` with one uncontended lock and never wait on a
/// reload; signing happens outside any lock.
final class KeyRingMonitor: Sendable {
    private let store: KeyRingDirectory
    private let clock: any WallClock
    private let logger: Logger
    private let signerTiming: SignerTiming?
    /// Where each read's outcome is counted (docs/operations.md, "Reading the metrics"); nil: nowhere.
    private let metrics: ServerMetrics?
    private let state: Mutex<PublishedKeys>
    /// The bytes of the state file behind the current ring, to skip re-parsing unchanged rings.
    private let lastStateFile = Mutex<Data?>(nil)

    /// `signerTiming`: this server's token lifetime and reload interval, recorded in the ring; `nil` records nothing.
    init(store: KeyRingDirectory, clock: any WallClock, logger: Logger, signerTiming: SignerTiming? = nil, metrics: ServerMetrics? = nil) {
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
        self.signerTiming = signerTiming
        self.state = Mutex(.empty)
    }

    /// The ring and JWKS in force now.
    var current: PublishedKeys { state.withLock { $0 } }

    /// The JWKS answers in force now, without a copy of the rest.
    var currentJWKS: EncodedJWKS { state.withLock { $0.encodedAnswers } }

    /// Reads the ring; on failure keeps the previous one and answers the error.
    @discardableResult
    func reload() -> (any Error)? {
        let now = clock.now
        let error = read(at: now)
        metrics?.recordKeyRingReload(succeeded: error == nil, at: now)
        return error
    }

    private func read(at now: Date) -> (any Error)? {
        let stateFile = try? Data(contentsOf: URL(fileURLWithPath: store.stateFilePath))
        let unchanged = stateFile != nil && stateFile == lastStateFile.withLock { $0 }
        if unchanged {
            // Same ring: only time can change what is published (a retired key's window ends).
            republishIfDue(at: now)
            return nil
        }
        do {
            var ring = try refusingDisappearance(try store.load())
            var loadedStateFile = stateFile
            if let signerTiming, !ring.isEmpty, !(ring.signerTiming?.covers(signerTiming) ?? false) {
                do {
                    ring = try refusingDisappearance(try store.recordSignerTiming(signerTiming))
                    // The file changed under our hands: the next reload re-reads it.
                    loadedStateFile = nil
                } catch let error as KeyRingError {
                    if case .disappeared = error { throw error }
                    logger.warning("cannot record this server's token lifetime in the key ring; `issuer keys prune` must then be run with this server's ISSUER_ACCESS_TOKEN_TTL, ISSUER_ID_TOKEN_TTL and ISSUER_KEYS_RELOAD_SECONDS", metadata: [
                        "error": "\(error)", "directory": "\(store.directory.path)",
                    ])
                }
            }
            let published = PublishedKeys(ring: ring, at: now)
            let previous = state.withLock { state in
                defer { state = published }
                return state
            }
            lastStateFile.withLock { $0 = loadedStateFile }
            if previous.publishedKids != published.publishedKids || previous.ring.active?.kid != ring.active?.kid {
                logger.info("key ring loaded", metadata: [
                    "active": "\(ring.active?.kid ?? "none")", "next": "\(ring.next?.kid ?? "none")",
                    "published": "\(published.publishedKids.count)",
                ])
            }
            return nil
        } catch {
            logger.error("key ring rejected; keeping the previous one", metadata: ["error": "\(error)", "directory": "\(store.directory.path)"])
            return error
        }
    }

    /// An empty read while a ring is in use is a failed load (docs/reference.md, "Faults and bad input"); before any ring is, it is
    /// just the ring before `issuer keys init`.
    private func refusingDisappearance(_ ring: KeyRing) throws -> KeyRing {
        if ring.isEmpty, !current.ring.isEmpty {
            throw KeyRingError.disappeared(directory: store.directory.path)
        }
        return ring
    }

    private func republishIfDue(at now: Date) {
        state.withLock { current in
            let kids = current.ring.publishedKeys(at: now).map(\.kid)
            if kids != current.publishedKids {
                current = PublishedKeys(ring: current.ring, at: now)
            }
        }
    }
}

/// Runs the monitor's reload loop for the server's lifetime.
struct KeyRingReloadService: Service {
    let monitor: KeyRingMonitor
    let interval: Duration

    func run() async throws {
        // Both loops end when the group shuts down gracefully: the task group is cancelled, the
        // sleep throws and the signal sequence finishes.
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    // SIGHUP: reload now (docs/reference.md, "Configuration").
                    for await _ in await UnixSignalsSequence(trapping: .sighup) {
                        await reloadOffTheEventLoops()
                    }
                }
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil {
                        await reloadOffTheEventLoops()
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// A reload reads files and may lock and sync the ring's state file: blocking work that must
    /// not hold an event loop, which in `serve` also runs Swift's tasks (`ServerThreads`).
    private func reloadOffTheEventLoops() async {
        let monitor = monitor
        _ = try? await NIOThreadPool.singleton.runIfActive { monitor.reload() }
    }
}

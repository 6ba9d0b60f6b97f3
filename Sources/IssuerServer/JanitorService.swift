import IssuerCore
import Logging
import ServiceLifecycle

/// Runs `SessionJanitor` every minute for the server's lifetime, sweeping again a second later
/// while a backlog remains (`SessionJanitor.sweepBacklog`). Every process may run one; their
/// batches skip each other's locked rows.
struct JanitorService: Service {
    let janitor: SessionJanitor
    let clock: any WallClock
    let logger: Logger
    var interval: Duration = .seconds(60)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: interval)) != nil {
                do {
                    let deleted = try await janitor.sweepBacklog(now: { clock.now })
                    if deleted.total > 0 {
                        logger.info("janitor deleted expired rows", metadata: [
                            "refresh_tokens": "\(deleted.refreshTokens)", "sessions": "\(deleted.sessions)",
                            "authorization_states": "\(deleted.authorizationStates)", "dpop_proofs": "\(deleted.dpopProofs)",
                            "finished": "\(deleted.finished)",
                        ])
                    }
                } catch is CancellationError {
                    // Shutting down.
                } catch {
                    logger.warning("janitor sweep failed; will retry", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}

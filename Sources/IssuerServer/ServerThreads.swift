import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// How `issuer serve` lays out its threads, decided once, before anything runs
/// (docs/design.md, "Performance").
///
/// - NIO's event loops and blocking pool follow the process's cores (`ProcessorShare`).
/// - Swift's tasks run on Swift's own cooperative pool, unless `ISSUER_TASK_EXECUTOR=event-loops`
///   makes NIO's event loops Swift's global executor: a handler then runs on the loop that read
///   its request, and the database pool resumes it there (`Postgres.AnswerPoller`). That saves
///   two thread hand-offs per request, but pins each connection's work, RSA signing included, to
///   one loop: measured on two cores it answered about 10% fewer refreshes with a higher p99 than
///   the cooperative pool, which gives the next free core whatever is ready (docs/performance.md).
///   It stays as an experiment for many-core hosts, where hand-offs cost more.
///
/// Nothing may block either way: a blocked handler holds a cooperative thread or an event loop.
/// libpq's blocking calls run on the database pool's own threads, and everything else awaits.
public enum ServerThreads {
    /// What `prepare()` decided.
    public struct Layout: Sendable, Equatable {
        /// The cores the thread pools were sized to.
        public let cores: Int
        /// Whether NIO's event loops run Swift's tasks (asked for, and NIO could install itself).
        public let eventLoopsRunTasks: Bool
    }

    private static let decided = Mutex<Layout?>(nil)

    /// Decides the layout on its first call, which must be on the main thread before the first
    /// `await` (NIO's rule for both steps); later calls answer the same layout.
    @discardableResult
    public static func prepare() -> Layout {
        decided.withLock { decided in
            if let decided { return decided }
            let cores = ProcessorShare.sizeThreadPools()
            let eventLoops = ProcessInfo.processInfo.environment["ISSUER_TASK_EXECUTOR"] == "event-loops"
            let installed = eventLoops && NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
            let layout = Layout(cores: cores, eventLoopsRunTasks: installed)
            decided = layout
            return layout
        }
    }
}

import NIOCore
import NIOPosix
import Synchronization

/// How `issuer serve` lays out its threads, decided once, before anything runs
/// (docs/design.md, "Performance").
///
/// - NIO's event loops and blocking pool follow the process's cores (`ProcessorShare`).
/// - NIO's event loops become Swift's global executor, so a request's handler runs on the loop
///   that read its bytes, and its answer is written there without a hop to another thread. With
///   Swift's own cooperative pool, every request crossed between the two twice. The database pool
///   resumes a caller on the loop it ran on (`Postgres.AnswerPoller`), which keeps a refresh on one
///   thread from its first byte to its last, apart from PostgreSQL's own work.
///
/// Nothing here may block: a blocked handler would hold an event loop, exactly as a blocked task
/// would hold a cooperative thread. libpq's blocking calls already run on the database pool's own
/// threads, and everything else awaits.
public enum ServerThreads {
    /// What `prepare()` decided.
    public struct Layout: Sendable, Equatable {
        /// The cores the thread pools were sized to.
        public let cores: Int
        /// Whether NIO's event loops run Swift's tasks (false where NIO could not install itself).
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
            let installed = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
            let layout = Layout(cores: cores, eventLoopsRunTasks: installed)
            decided = layout
            return layout
        }
    }
}

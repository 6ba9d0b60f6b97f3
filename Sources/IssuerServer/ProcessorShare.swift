import Foundation
import NIOCore

/// The cores this process may run on, and the thread pools sized to them.
///
/// A process's share of a machine is the smaller of its CPU affinity (`taskset`, a cpuset given
/// by an orchestrator when it pins) and its cgroup CPU quota (a container's CPU limit). NIO's
/// `System.coreCount` reads the quota and the cgroup cpuset but not the affinity mask, and the
/// event loops and blocking pool it sizes by default would otherwise follow the whole host: a
/// container limited to 2 CPUs on a 64-core node would start 128 such threads that can never run
/// at once, and pay for their hand-offs. (Swift's cooperative pool, sized by Dispatch, already
/// follows the affinity mask; it does not see a quota.)
public enum ProcessorShare {
    /// The cores this process may use: at least 1.
    public static var cores: Int {
        max(1, min(affinityCount ?? System.coreCount, System.coreCount))
    }

    /// The CPUs in this process's affinity mask; nil where unknown. Read from `/proc/self/status`
    /// (`Cpus_allowed`), as Glibc's `sched_getaffinity` is not visible to Swift.
    public static var affinityCount: Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return affinityCount(status: status)
    }

    /// The number of CPUs in the `Cpus_allowed:` mask of a `/proc/<pid>/status` text (hex digits
    /// in comma-separated groups); nil if there is no such line or it says no CPU.
    static func affinityCount(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) where character != "," && !character.isWhitespace {
            guard let nibble = character.hexDigitValue else { return nil }
            count += nibble.nonzeroBitCount
        }
        return count > 0 ? count : nil
    }

    /// Sizes NIO's shared event loops and blocking pool to `cores`, unless the operator chose with
    /// NIO's own `NIO_SINGLETON_GROUP_LOOP_COUNT` / `NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT`.
    /// Must run once, before anything uses those singletons (`ServerThreads.prepare()` does).
    /// - Returns: the cores sized for.
    @discardableResult
    public static func sizeThreadPools() -> Int {
        let cores = cores
        let environment = ProcessInfo.processInfo.environment
        if environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil {
            NIOSingletons.groupLoopCountSuggestion = cores
        }
        if environment["NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT"] == nil {
            NIOSingletons.blockingPoolThreadCountSuggestion = cores
        }
        return cores
    }
}

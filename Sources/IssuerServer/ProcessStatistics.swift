#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The process metrics every Prometheus client library exports under the same names
/// (docs/operations.md, "Reading the metrics"), which swift-metrics has no collector for: read
/// from `/proc` on Linux when `/metrics` is scraped. Elsewhere there is no `/proc`, and none is
/// exported.
struct ProcessStatistics: Equatable {
    /// Unix time the process started.
    var startTime: Double
    /// User and system CPU time, in seconds.
    var cpuSeconds: Double
    /// Resident set size, in bytes.
    var residentMemoryBytes: Double
    /// Open file descriptors.
    var openFileDescriptors: Int

    /// The metric names, for deploy/checks/metric_names.py.
    static let names = [
        "process_start_time_seconds", "process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds",
    ]

    /// This process, now; nil where `/proc` cannot be read.
    static func current() -> ProcessStatistics? {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        else { return nil }
        return ProcessStatistics(
            stat: stat, statm: statm, systemStat: system, openFileDescriptors: descriptors.count,
            ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))), pageSize: Double(sysconf(Int32(_SC_PAGESIZE))))
        #else
        return nil
        #endif
    }

    /// Parses proc(5): `/proc/self/stat` (utime, stime and starttime, in clock ticks, are fields
    /// 14, 15 and 22), `/proc/self/statm` (resident pages, field 2) and `/proc/stat` (`btime`, the
    /// boot's Unix time). The command name in `stat` is in parentheses and may hold spaces and
    /// parentheses, so fields are counted from the last `)`.
    init?(stat: String, statm: String, systemStat: String, openFileDescriptors: Int, ticksPerSecond: Double, pageSize: Double) {
        guard ticksPerSecond > 0, let close = stat.lastIndex(of: ")") else { return nil }
        // Fields from 3 (state) on.
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 20, let utime = Double(fields[14 - 3]), let stime = Double(fields[15 - 3]),
              let start = Double(fields[22 - 3]) else { return nil }
        let pages = statm.split(separator: " ")
        guard pages.count >= 2, let resident = Double(pages[1]) else { return nil }
        guard let bootLine = systemStat.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let bootTime = Double(bootLine.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces)) else { return nil }
        startTime = bootTime + start / ticksPerSecond
        cpuSeconds = (utime + stime) / ticksPerSecond
        residentMemoryBytes = resident * pageSize
        self.openFileDescriptors = openFileDescriptors
    }

    init(startTime: Double, cpuSeconds: Double, residentMemoryBytes: Double, openFileDescriptors: Int) {
        self.startTime = startTime
        self.cpuSeconds = cpuSeconds
        self.residentMemoryBytes = residentMemoryBytes
        self.openFileDescriptors = openFileDescriptors
    }

    /// Prometheus text exposition format 0.0.4, to follow the registry's output.
    var exposition: String {
        let metrics: [(String, String, String, String)] = [
            (Self.names[0], "gauge", "Start time of the process since unix epoch in seconds.", Self.format(startTime)),
            (Self.names[1], "counter", "Total user and system CPU time spent in seconds.", Self.format(cpuSeconds)),
            (Self.names[2], "gauge", "Resident memory size in bytes.", Self.format(residentMemoryBytes)),
            (Self.names[3], "gauge", "Number of open file descriptors.", String(openFileDescriptors)),
        ]
        return metrics.map { name, type, help, value in
            "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }.joined()
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

import Foundation
import HummingbirdTesting
import IssuerCore
@testable import IssuerServer
import Logging
import Testing
import TestSupport

/// docs/operations.md, "Reading the metrics": the build, the key ring and the process, on the
/// management port's `/metrics`.
@Suite("/metrics: build, key ring and process")
struct OperationalMetricsTests {
    @Test("the management port's /metrics has issuer_build_info, the key-ring gauges and the process metrics")
    func managementPortScrape() async throws {
        let opsPort = Int.random(in: 32_000..<40_000)
        let clock = ManualClock(Date())
        try await withIssuer(environment: ["ISSUER_OPS_PORT": "\(opsPort)", "ISSUER_OPS_HOST": "127.0.0.1"], clock: clock) { fixture in
            let ring = try fixture.ring()
            let active = try #require(ring.active), next = try #require(ring.next)
            var dependencies = fixture.dependencies
            dependencies.buildInfo = BuildInfo(version: "9.8.7", commit: "0123456789ab")
            try await buildApplication(dependencies).test(.router) { _ in
                var body: String?
                // Up to 30 s: the first test phase runs hundreds of tests at once on two cores.
                var up = false
                for _ in 0..<300 where !up {
                    up = await TestHTTP.get(port: opsPort, path: "/healthz")?.status == 200
                    if !up { try await Task.sleep(for: .milliseconds(100)) }
                }
                try #require(up, "the management port never answered /healthz")
                // Three days later by the server's clock.
                clock.advance(by: .seconds(3 * 86_400))
                let scrape = await TestHTTP.get(port: opsPort, path: "/metrics")
                #expect(scrape?.status == 200)
                body = scrape?.body
                let text = try #require(body)
                let swift = BuildInfo.compilerVersion
                #expect(MetricsExposition.value(in: text, #"issuer_build_info{version="9.8.7",commit="0123456789ab",swift="\#(swift)"}"#) == 1)
                #expect(text.contains("# TYPE issuer_build_info gauge"))

                let activeAge = try #require(MetricsExposition.value(in: text, "issuer_keys_active_age_seconds"))
                let expectedAge = clock.now.timeIntervalSince(active.activatedAt ?? active.createdAt)
                #expect(abs(activeAge - expectedAge) < 1)
                #expect(activeAge > 2.9 * 86_400, "the server's clock, not the wall's")
                #expect(MetricsExposition.value(in: text, "issuer_keys_next_published_timestamp_seconds") == next.createdAt.timeIntervalSince1970)
                let lastReload = try #require(MetricsExposition.value(in: text, "issuer_keys_last_reload_success_timestamp_seconds"))
                #expect(lastReload <= clock.now.timeIntervalSince1970 && lastReload >= clock.now.timeIntervalSince1970 - 3 * 86_400 - 60)
                #expect(MetricsExposition.value(in: text, "issuer_keys_reload_failures_total") == 0, "exported from the start, at 0")

                #if os(Linux)
                let now = Date().timeIntervalSince1970
                let started = try #require(MetricsExposition.value(in: text, "process_start_time_seconds"))
                #expect(started <= now && started > now - 86_400, "this test process started today")
                #expect(try #require(MetricsExposition.value(in: text, "process_cpu_seconds_total")) > 0)
                #expect(try #require(MetricsExposition.value(in: text, "process_resident_memory_bytes")) > 1_000_000)
                #expect(try #require(MetricsExposition.value(in: text, "process_open_fds")) > 3)
                #expect(text.contains("# TYPE process_cpu_seconds_total counter"))
                #expect(text.contains("# TYPE process_open_fds gauge"))
                #endif
            }
        }
    }

    @Test("a failed reload counts and leaves the last success time where it was; the next good one moves it")
    func reloadOutcomes() throws {
        let directory = try TestKeyRing.make()
        defer { TestDirectories.remove(directory) }
        let clock = ManualClock(Date())
        let metrics = ServerMetrics()
        let store = KeyRingDirectory(directory: directory)
        let monitor = KeyRingMonitor(store: store, clock: clock, logger: Logger(label: "test"), metrics: metrics)
        #expect(monitor.reload() == nil)
        let firstSuccess = clock.now.timeIntervalSince1970
        #expect(MetricsExposition.value(in: MetricsExposition.text(metrics), "issuer_keys_reload_failures_total") == 0)
        #expect(MetricsExposition.value(in: MetricsExposition.text(metrics), "issuer_keys_last_reload_success_timestamp_seconds") == firstSuccess)

        let stateFile = URL(fileURLWithPath: store.stateFilePath)
        let good = try Data(contentsOf: stateFile)
        try Data("{ not json".utf8).write(to: stateFile)
        for _ in 0..<2 {
            clock.advance(by: .seconds(5))
            #expect(monitor.reload() != nil)
        }
        #expect(MetricsExposition.value(in: MetricsExposition.text(metrics), "issuer_keys_reload_failures_total") == 2)
        #expect(MetricsExposition.value(in: MetricsExposition.text(metrics), "issuer_keys_last_reload_success_timestamp_seconds") == firstSuccess)

        try good.write(to: stateFile)
        clock.advance(by: .seconds(5))
        #expect(monitor.reload() == nil)
        #expect(MetricsExposition.value(in: MetricsExposition.text(metrics), "issuer_keys_reload_failures_total") == 2)
        #expect(MetricsExposition.value(in: MetricsExposition.text(metrics), "issuer_keys_last_reload_success_timestamp_seconds") == clock.now.timeIntervalSince1970)
    }

    @Test("a ring without an active or a next key exports no made-up age for it")
    func emptyRing() {
        let metrics = ServerMetrics()
        metrics.recordKeyRing(.empty, at: Date())
        let text = MetricsExposition.text(metrics)
        #expect(!text.contains("issuer_keys_active_age_seconds"))
        #expect(!text.contains("issuer_keys_next_published_timestamp_seconds"))
    }

    @Test("proc(5) is read from the last ')' of the command name: utime, stime, starttime, resident pages, btime")
    func procParsing() throws {
        // Fields 3–22 after the name: state, ppid, …, utime (14) = 250, stime (15) = 50, starttime (22) = 12345.
        let stat = "4242 (issuer (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 12345 123456789 2000 18446744073709551615"
        let parsed = try #require(ProcessStatistics(
            stat: stat, statm: "30000 2000 500 100 0 5000 0\n", systemStat: "cpu  1 2 3\nbtime 1700000000\nprocesses 9\n",
            openFileDescriptors: 12, ticksPerSecond: 100, pageSize: 4096))
        #expect(parsed == ProcessStatistics(startTime: 1_700_000_123.45, cpuSeconds: 3, residentMemoryBytes: 8_192_000, openFileDescriptors: 12))
        #expect(parsed.exposition.contains("process_cpu_seconds_total 3\n"))
        #expect(parsed.exposition.contains("process_start_time_seconds 1700000123.45\n"))
        #expect(ProcessStatistics(stat: "garbage", statm: "", systemStat: "", openFileDescriptors: 0, ticksPerSecond: 100, pageSize: 4096) == nil)
        #if os(Linux)
        #expect(ProcessStatistics.current() != nil)
        #endif
    }
}

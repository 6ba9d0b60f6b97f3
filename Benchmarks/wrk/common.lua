-- Shared by the scripts beside it. Each wrk thread gets its number (`index`, from 0), for the
-- scripts that split a token file between threads.
local threads = 0
function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end

-- One machine-readable line when wrk finishes, in the same RESULT format as issuer-bench, so
-- scripts/bench parses every load generator alike. Errors are answers other than 2xx (status)
-- and socket errors (connect, read, write, timeout).
function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local errors = e.status + e.connect + e.read + e.write + e.timeout
  io.write(string.format(
    "RESULT mode=%s rate=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f p999_ms=%.2f max_ms=%.2f errors=%d\n",
    os.getenv("BENCH_MODE") or "wrk", (summary.requests - errors) / seconds,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, latency.max / 1000, errors))
end

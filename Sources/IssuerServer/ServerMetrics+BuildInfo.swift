extension ServerMetrics {
    /// `issuer_build_info{version, commit, swift} 1` (docs/operations.md, "Reading the metrics"), the
    /// Prometheus convention for a build's identity: joined on `instance`, it labels any other series.
    func recordBuildInfo(_ info: BuildInfo) {
        registry.makeGauge(
            descriptor: Self.name("build", "info", "", "Always 1; the labels say which build runs: release, git commit, Swift compiler"),
            labels: [("version", info.version), ("commit", info.commit), ("swift", info.swift)]
        ).set(1.0)
    }
}

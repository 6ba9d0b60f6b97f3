import ArgumentParser

/// `issuer-bench`: benchmarks of the issuer, not tests. `scripts/bench` runs them next to
/// `openssl speed`, the bound every token request is measured against (docs/design.md, "Keys and tokens").
/// `@main` here rather than in `main.swift`, for the reason `Issuer.swift` gives.
@main
struct IssuerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issuer-bench",
        abstract: "Benchmarks of token signing and of a running issuer.",
        subcommands: [SignCommand.self, ProofCommand.self, ExchangeCommand.self, RefreshCommand.self, TokensCommand.self, RotationScriptCommand.self]
    )
}

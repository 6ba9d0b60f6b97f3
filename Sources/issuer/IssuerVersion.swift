/// docs/reference.md, "Admin CLI" `issuer --version`: the release and the git commit the binary was built from
/// (`buildCommit`, written at build time by the EmbedBuildCommit plugin; `unknown` outside a clone).
enum IssuerVersion {
    static let release = "0.1.0"

    static var description: String { "\(release) (commit \(buildCommit))" }
}

// swift-tools-version:6.2
import PackageDescription

// Swift 6 language mode everywhere (strict concurrency is part of it); warnings are treated as
// errors in CI through `-warnings-as-errors` on the command line, not here, so that a dependency's
// warnings never break our build.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "issuer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "issuer", targets: ["issuer"]),
        .executable(name: "issuer-bench", targets: ["IssuerBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        // 4.x because jwt-kit 5.7 (test-only) requires it.
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", exact: "5.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        // Already in the graph through Hummingbird; named for NIOHTTPTypes, the request parts the
        // request-read timeout handler watches (docs/reference.md, "Faults and bad input": slow clients).
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        // issuer-bench only: latency histograms of the open-loop mode (the open-loop p99 target of Benchmarks/README.md).
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", exact: "0.2.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "JOSE",
            // OpenSSL for RSA (signing speed, docs/design.md); swift-crypto for ES256 verification.
            dependencies: ["COpenSSL", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(name: "CEpoll"),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(
            name: "Postgres",
            dependencies: [
                "CLibPQ",
                "CEpoll",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MigrationEmbedder",
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["MigrationEmbedder"]
        ),
        .plugin(
            name: "EmbedBuildCommit",
            capability: .buildTool()
        ),
        // Decisions and the narrow store protocols they ask of storage; no SQL (docs/design.md,
        // "Modules").
        .target(
            name: "IssuerCore",
            dependencies: [
                "JOSE",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Every `*Store` over PostgreSQL and the migrations built into the binary: IssuerCore's
        // store protocols answered with SQL. Only the composition root builds a store.
        .target(
            name: "IssuerStorage",
            dependencies: ["IssuerCore", "Postgres"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedMigrations"]
        ),
        .target(
            name: "IssuerServer",
            dependencies: [
                "IssuerCore",
                "IssuerStorage",
                "Postgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "JOSE",
            ],
            swiftSettings: swiftSettings
        ),
        // The local stand-in for Apple's and Google's signers behind `issuer dev` and the
        // benchmarks; development only, and nothing in IssuerCore or IssuerServer depends on it.
        .target(
            name: "DevSigner",
            dependencies: ["JOSE", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "issuer",
            dependencies: [
                "IssuerServer",
                "IssuerCore",
                "IssuerStorage",
                "Postgres",
                "DevSigner",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // `issuer dev facebook callback` posts to an issuer as Facebook would; already
                // linked through IssuerServer.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedBuildCommit"]
        ),
        .executableTarget(
            name: "IssuerBench",
            dependencies: [
                "IssuerCore",
                // The rotation statement itself, for the pgbench script (`issuer-bench rotation-script`).
                "IssuerStorage",
                "JOSE",
                "DevSigner",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Benchmarks/IssuerBench",
            swiftSettings: swiftSettings
        ),
        // The fuzz harnesses' checks, one type per parser of untrusted input (Fuzz/Harnesses): run
        // by the libFuzzer targets below (scripts/fuzz), and on every seed of Fuzz/corpus by
        // FuzzCorpusTests. What they reach that the modules do not make public is `package`, so
        // they need no `@testable import` and every configuration builds them.
        .target(
            name: "FuzzHarnesses",
            dependencies: [
                "IssuerCore", "IssuerServer", "JOSE", "Postgres", .product(name: "Crypto", package: "swift-crypto"),
                // NIO's HTTP/1 decoder, which PlainGetHead's harness holds it to.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Fuzz/Harnesses",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "Postgres", "IssuerCore", "IssuerStorage", "JOSE",
                // Signs the DPoP proofs an app would send, independently of JOSE.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JOSETests",
            dependencies: [
                "JOSE",
                "COpenSSL",
                "TestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
                // Signs the ES256 tokens the verifier must accept, independently of JOSE.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PostgresTests",
            dependencies: ["Postgres", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IssuerCoreTests",
            dependencies: ["IssuerCore", "IssuerStorage", "Postgres", "JOSE", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IssuerServerTests",
            dependencies: [
                "IssuerServer", "IssuerStorage", "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IssuerEndToEndTests",
            dependencies: [
                "TestSupport", "Postgres", "IssuerStorage",
                // Check what `issuer dev facebook` signs (RS256, HMAC-SHA256) independently of it.
                "JOSE", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IssuerCLITests",
            dependencies: ["issuer", "IssuerCore", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: ["FuzzHarnesses"],
            swiftSettings: swiftSettings
        ),
    ]
)

// libFuzzer targets (scripts/fuzz): Fuzz/<Name>/main.swift, the entry points libFuzzer calls, built
// as `Fuzz<Name>` around its harness in FuzzHarnesses, against the modules themselves, so every
// file of a module is fuzzed as shipped. Declared only under ISSUER_FUZZ=1, which scripts/fuzz
// sets together with AddressSanitizer and libFuzzer coverage, so a plain `swift build` or
// `swift test` never sees them (`swift test` replays the corpus through the harnesses instead).
if Context.environment["ISSUER_FUZZ"] != nil {
    let fuzzTargets = [
        "CacheControl", "ForwardedFor", "FormBody", "JSONBody", "JWS", "JWK", "AppleNotificationEvent",
        "AppleUserJSON", "AuthorizationState", "RedirectURI", "BrowserParameters", "FacebookSignedRequest", "PlainGetHead",
        "PlainJSONObject",
    ]
    package.targets.append(.target(name: "LibFuzzer", path: "Fuzz/LibFuzzer"))
    for name in fuzzTargets {
        package.targets.append(.executableTarget(
            name: "Fuzz\(name)",
            dependencies: ["FuzzHarnesses", "LibFuzzer"],
            path: "Fuzz/\(name)",
            swiftSettings: swiftSettings + [.unsafeFlags(["-parse-as-library"])],
            // The libFuzzer runtime (its `main` is overridden, see Fuzz/LibFuzzer/include).
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        ))
        package.products.append(.executable(name: "Fuzz\(name)", targets: ["Fuzz\(name)"]))
    }
}

// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "latchkey",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "latchkey", targets: ["Latchkey"]),
    ],
    // Exact versions: the ones the project is tested with (Package.resolved stays out of git, so `from:` would let a
    // fresh clone float to newer ones). Raise them deliberately, with a full test run.
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams.git", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", exact: "2.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", exact: "1.4.0", traits: [.defaults, "YAML"]),
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/yaslab/CSV.swift.git", exact: "2.5.2"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CCrypt",
            providers: [.apt(["libcrypt-dev"])]
        ),
        .systemLibrary(
            name: "CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"])]
        ),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "LatchkeyCore",
            dependencies: [
                "COpenSSL",
                "CCrypt",
                "CArgon2",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "LatchkeyFunctions",
            dependencies: [
                "LatchkeyCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "LatchkeySMTP",
            dependencies: [
                "LatchkeyCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "LatchkeySQLite",
            dependencies: [
                "LatchkeyCore",
                "CSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "LatchkeyPostgres",
            dependencies: [
                "LatchkeyCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "LatchkeyHTTP",
            dependencies: [
                "LatchkeyCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Builds EmbeddedDefaults.swift from Migrations/, config/ and openapi/ at build time.
        .executableTarget(name: "EmbedDefaultsTool", path: "Plugins/EmbedDefaultsTool"),
        .plugin(name: "EmbedDefaults", capability: .buildTool(), dependencies: ["EmbedDefaultsTool"]),
        .executableTarget(
            name: "Latchkey",
            dependencies: [
                "CMalloc",
                "LatchkeyCore",
                "LatchkeySQLite",
                "LatchkeyPostgres",
                "LatchkeyHTTP",
                "LatchkeySMTP",
                "LatchkeyFunctions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            plugins: ["EmbedDefaults"]
        ),
        // bench/suite.py's reference: the framework's ceiling on the same dependency versions.
        .executableTarget(
            name: "ReferenceServer",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "bench/reference"
        ),
        // bench/floors.py's parts: what a signature, a token check, an indexed read and a group-committed write cost.
        .executableTarget(
            name: "FloorBench",
            dependencies: ["LatchkeyCore", "LatchkeySQLite", "LatchkeyPostgres",
                           .product(name: "JWTKit", package: "jwt-kit"), .product(name: "CryptoExtras", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log")],
            path: "bench/floor"
        ),
        // What several test targets share: an engine over a real SQLite file with a manual clock, the stores the
        // contract suite runs on, fixtures.
        .target(
            name: "LatchkeyTestSupport",
            dependencies: ["LatchkeyCore", "LatchkeySQLite", "LatchkeyPostgres",
                           .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log")],
            path: "Tests/LatchkeyTestSupport"
        ),
        // One test target per source target, and the store contract that every store must keep.
        .testTarget(name: "LatchkeyCoreTests", dependencies: ["LatchkeyCore", "LatchkeySQLite", "LatchkeyTestSupport",
                                                              .product(name: "Logging", package: "swift-log"),
                                                              .product(name: "Crypto", package: "swift-crypto"),
                                                              .product(name: "CryptoExtras", package: "swift-crypto"),
                                                              .product(name: "JWTKit", package: "jwt-kit")]),
        .testTarget(name: "LatchkeySQLiteTests", dependencies: ["LatchkeySQLite", "LatchkeyCore", "LatchkeyTestSupport",
                                                                .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "LatchkeyPostgresTests", dependencies: ["LatchkeyPostgres", "LatchkeyCore"]),
        .testTarget(name: "StoreContractTests", dependencies: ["LatchkeyCore", "LatchkeySQLite", "LatchkeyPostgres", "LatchkeyTestSupport",
                                                               .product(name: "PostgresNIO", package: "postgres-nio"),
                                                               .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "LatchkeySMTPTests", dependencies: ["LatchkeySMTP", "LatchkeyCore", "LatchkeyTestSupport",
                                                              .product(name: "NIOEmbedded", package: "swift-nio"),
                                                              .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(name: "LatchkeyHTTPTests", dependencies: ["Latchkey", "LatchkeyHTTP", "LatchkeyCore", "LatchkeyTestSupport",
                                                              .product(name: "HummingbirdTesting", package: "hummingbird"),
                                                              .product(name: "HTTPTypes", package: "swift-http-types"),
                                                              .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(name: "LatchkeyTests", dependencies: ["Latchkey", "LatchkeyHTTP", "LatchkeyCore",
                                                          .product(name: "Logging", package: "swift-log")]),
    ]
)

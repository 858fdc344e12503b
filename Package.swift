// swift-tools-version:6.0
import PackageDescription

/// Settings every Lumen target shares: Swift 6 mode with complete concurrency checking (the default in 6),
/// and `any` spelled out for existentials.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "Lumen",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lumend", targets: ["lumend"]),
        .executable(name: "lumenctl", targets: ["lumenctl"]),
        // lumend and lumenctl in one binary, chosen by the name it is called by: what make install installs.
        .executable(name: "lumen", targets: ["lumen"]),
        .library(name: "LumenClient", targets: ["LumenClient"]),
        .library(name: "LumenProtocol", targets: ["LumenProtocol"]),
        // For a Swift test suite driving a lumend: its clock, the command record and assertions on them.
        .library(name: "LumenTesting", targets: ["LumenTesting"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CEdit", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),
        .systemLibrary(name: "CGnuTLS", pkgConfig: "gnutls", providers: [.apt(["libgnutls28-dev"])]),
        .target(name: "LumenProtocol", swiftSettings: swiftSettings),
        .target(
            name: "LumenModel",
            dependencies: ["LumenProtocol"],
            resources: [.embedInCode("Resources/demo-home.json")],
            swiftSettings: swiftSettings
        ),
        .target(name: "LumenLoop", dependencies: ["CLinux", "LumenProtocol"], swiftSettings: swiftSettings),
        .target(
            name: "LumenSimulation", dependencies: ["LumenProtocol", "LumenModel", "LumenLoop"],
            swiftSettings: swiftSettings),
        .target(
            name: "LumenStore", dependencies: ["CLinux", "LumenProtocol", "LumenModel", "LumenLoop"],
            swiftSettings: swiftSettings),
        .target(
            name: "LumenScopes", dependencies: ["LumenProtocol", "LumenModel", "LumenSimulation"],
            swiftSettings: swiftSettings),
        .target(
            name: "LumenService", dependencies: ["CLinux", "CSystemd", "LumenProtocol"], swiftSettings: swiftSettings),
        .target(
            name: "LumenLIFX", dependencies: ["LumenProtocol", "LumenModel", "LumenSimulation", "LumenScopes"],
            swiftSettings: swiftSettings),
        .target(
            name: "LumenHue",
            dependencies: [
                "CLinux", "LumenProtocol", "LumenModel", "LumenSimulation", "LumenScopes", "LumenService",
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "LumenDashboard", dependencies: ["LumenProtocol"],
            resources: [.embedInCode("Resources/dashboard.html")], swiftSettings: swiftSettings),
        .target(name: "LumenCommandLine", swiftSettings: swiftSettings),
        .target(
            name: "LumenServer",
            dependencies: [
                "CGnuTLS", "CLinux", "LumenLoop", "LumenProtocol", "LumenModel", "LumenSimulation", "LumenStore",
                "LumenScopes", "LumenService",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LumenDaemon",
            dependencies: [
                "CLinux", "LumenCommandLine", "LumenLoop", "LumenProtocol", "LumenModel", "LumenSimulation",
                "LumenStore", "LumenScopes", "LumenService", "LumenServer", "LumenHue", "LumenLIFX", "LumenDashboard",
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "LumenClient", dependencies: ["LumenProtocol"], swiftSettings: swiftSettings),
        .target(name: "LumenTesting", dependencies: ["LumenClient", "LumenProtocol"], swiftSettings: swiftSettings),
        .executableTarget(name: "lumend", dependencies: ["LumenDaemon", "LumenService"], swiftSettings: swiftSettings),
        .target(
            name: "LumenCtlTool", dependencies: ["CEdit", "LumenCommandLine", "LumenClient", "LumenProtocol"],
            swiftSettings: swiftSettings),
        .executableTarget(name: "lumenctl", dependencies: ["LumenCtlTool"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "lumen", dependencies: ["LumenCtlTool", "LumenDaemon", "LumenService"], swiftSettings: swiftSettings),
        .target(
            name: "LumenFuzzing",
            dependencies: [
                "LumenProtocol", "LumenModel", "LumenStore", "LumenSimulation", "LumenScopes", "LumenServer",
                "LumenService", "LumenHue", "LumenLIFX", "LumenDashboard", "LumenLoop",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "lumen-fuzz", dependencies: ["LumenFuzzing"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "lumen-bench",
            dependencies: [
                "CLinux", "LumenProtocol", "LumenModel", "LumenSimulation", "LumenStore", "LumenService", "LumenServer",
                "LumenClient", "LumenHue", "LumenLIFX", "LumenScopes",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LumenTestSupport",
            dependencies: ["LumenProtocol", "LumenModel", "LumenSimulation", "CLinux"],
            path: "Tests/LumenTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "LumenCommandLineTests", dependencies: ["LumenCommandLine"], swiftSettings: swiftSettings),
        .testTarget(name: "LumenProtocolTests", dependencies: ["LumenProtocol"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LumenModelTests",
            dependencies: ["LumenModel", "LumenSimulation", "LumenTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LumenSimulationTests",
            dependencies: ["LumenSimulation", "LumenTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LumenStoreTests",
            dependencies: ["LumenStore", "LumenSimulation", "LumenTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LumenServerTests",
            dependencies: ["LumenServer", "LumenClient", "LumenTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LumenLIFXTests", dependencies: ["LumenLIFX", "LumenTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LumenDashboardTests", dependencies: ["LumenDashboard"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LumenHueTests", dependencies: ["LumenHue", "LumenService", "LumenTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LumenServiceTests", dependencies: ["LumenService", "LumenTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LumenDaemonTests", dependencies: ["LumenDaemon", "LumenServer", "LumenTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LumenFuzzingTests",
            dependencies: ["LumenFuzzing", "LumenTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LumenTestingTests",
            dependencies: ["LumenTesting", "LumenClient", "LumenProtocol", "LumenTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LumendTests",
            dependencies: ["LumenTestSupport", "LumenClient", "LumenSimulation", "LumenLIFX", "LumenServer"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
//
// The layout of Sources/ is the architecture (see docs/ARCHITECTURE.md):
//   pure policy      ExtensiondPolicy
//   model            ExtensiondConfig (uses the policy's values), TOML (the config files' parser),
//                    Spelling (the closest allowed word to a mistyped one)
//   Linux adapters   CLinux (C shim, libseccomp), CMalloc (malloc_trim), Cgroup, LinuxProcess,
//                    Sockets, EventLoop, HTTPServer, Systemd (libsystemd: notify, sockets, journal,
//                    bus)
//   protocols        JSON (the project's coder), WireProtocol (extension socket, shared types),
//                    HostProtocol (host socket),
//                    ControlProtocol (supervisorctl),
//                    PrometheusText (the metrics exposition format)
//   daemon rooms     DaemonSupport (event log, files, errors), Output, ProcessIsolation,
//                    Processes, ExtensionCoordination, Pressure, Hosts, Control, Metrics
//   daemon wiring    Supervisor (the composition root), extensiond
//   clients          supervisorctl, ExtensionSDK (also the package sdk/ExtensionSDK) and its
//                    test kit ExtensionSDKTesting, HostClient, extensiond-today, demos
import PackageDescription

/// The installed programs link libstdc++ statically: linker/libstdc++.so says why and how.
let staticLibstdcxx: [LinkerSetting] = [.unsafeFlags(["-L", Context.packageDirectory + "/linker"])]

/// The release programs' relative relocations packed (DT_RELR, glibc 2.36): 7 KiB instead of
/// 800 KiB that the loader reads at every start and that stays mapped (bench/README.md).
let packedRelocations: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(configuration: .release)),
]

/// The functions the release daemon runs once it serves laid out together
/// (linker/extensiond.order), so that the pages its launches fault back in hold little else.
let hotFunctionsFirst: [LinkerSetting] = [
    .unsafeFlags(
        ["-Xlinker", "--symbol-ordering-file=" + Context.packageDirectory + "/linker/extensiond.order", "-Xlinker", "--no-warn-symbol-ordering"],
        .when(configuration: .release)
    ),
]

let package = Package(
    name: "extensiond",
    products: [
        .executable(name: "extensiond", targets: ["extensiond"]),
        .executable(name: "supervisorctl", targets: ["supervisorctl"]),
        .executable(name: "extensiond-today", targets: ["extensiond-today"]),
        .library(name: "ExtensionSDK", targets: ["ExtensionSDK"]),
        .library(name: "ExtensionSDKTesting", targets: ["ExtensionSDKTesting"]),
        .library(name: "HostClient", targets: ["HostClient"]),
        .library(name: "ExtensiondTestSupport", targets: ["ExtensiondTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // Linux adapters.
        // The sandbox's seccomp filter is built by libseccomp (Debian's libseccomp-dev).
        .target(name: "CLinux", linkerSettings: [.linkedLibrary("seccomp")]),
        .target(name: "Cgroup", dependencies: ["CLinux", "LinuxProcess"]),
        .target(name: "LinuxProcess", dependencies: ["CLinux"]),
        .target(name: "Sockets"),
        .target(name: "EventLoop", dependencies: ["CLinux", "Sockets"]),
        // libsystemd's headers (libsystemd-dev); the library is loaded at its first use, not
        // linked (Sources/CSystemd/shim.h), so no pkg-config: it would add -lsystemd.
        .systemLibrary(name: "CSystemd"),
        .target(name: "Systemd", dependencies: ["CSystemd", "CLinux", "EventLoop", "Sockets"]),
        .target(name: "HTTPServer", dependencies: ["EventLoop", "Sockets"]),

        // Pure model and policy: no I/O, no clocks of their own.
        // Cross-module optimisation lets the daemon specialise the generic refresh engine
        // on its hot path (a cached pull); the policy is not part of the SDK's graph.
        .target(name: "ExtensiondPolicy", swiftSettings: [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]),
        .target(name: "TOML"),
        .target(name: "Spelling"),
        .target(name: "ExtensiondConfig", dependencies: ["TOML", "ExtensiondPolicy", "Spelling"]),

        // Protocols.
        // Cross-module optimisation lets the protocols specialise the generic coder on their
        // messages, as they did when it was part of WireProtocol.
        .target(name: "JSON", swiftSettings: [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]),
        .target(name: "WireProtocol", dependencies: ["JSON"]),
        // Apart from WireProtocol so that SDK widgets do not carry the host protocol's code.
        .target(name: "HostProtocol", dependencies: ["WireProtocol"]),
        .target(name: "ControlProtocol", dependencies: ["HostProtocol"]),
        .target(name: "PrometheusText"),

        // The daemon's rooms: each imports only the rooms below it (docs/ARCHITECTURE.md).
        .target(name: "DaemonSupport", dependencies: [
            "Cgroup", "ControlProtocol", "EventLoop", "ExtensiondConfig", "ExtensiondPolicy", "PrometheusText", "Sockets", "Systemd",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
        ]),
        .target(name: "Output", dependencies: ["DaemonSupport", "ControlProtocol", "Systemd", "Sockets", .product(name: "Logging", package: "swift-log")]),
        .target(name: "ProcessIsolation", dependencies: [
            "DaemonSupport", "ControlProtocol", "EventLoop", "ExtensiondConfig", "ExtensiondPolicy", "LinuxProcess", "Sockets", "WireProtocol",
        ]),
        .target(name: "Processes", dependencies: [
            "DaemonSupport", "Output", "ProcessIsolation", "Cgroup", "ControlProtocol", "EventLoop", "ExtensiondConfig", "ExtensiondPolicy",
            "LinuxProcess", "Sockets", "Systemd", "WireProtocol", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "ExtensionCoordination", dependencies: [
            "DaemonSupport", "ProcessIsolation", "ControlProtocol", "EventLoop", "ExtensiondConfig", "ExtensiondPolicy", "HostProtocol",
            "Sockets", "WireProtocol",
        ]),
        .target(name: "Pressure", dependencies: [
            "DaemonSupport", "Processes", "Cgroup", "ControlProtocol", "EventLoop", "ExtensiondConfig", "ExtensiondPolicy", "LinuxProcess", "WireProtocol",
        ]),
        .target(name: "Hosts", dependencies: [
            "DaemonSupport", "ExtensionCoordination", "EventLoop", "ExtensiondConfig", "ExtensiondPolicy", "HostProtocol", "Sockets",
        ]),
        .target(name: "Control", dependencies: [
            "DaemonSupport", "Output", "Processes", "ExtensionCoordination", "Pressure", "Hosts", "Cgroup", "ControlProtocol", "EventLoop",
            "ExtensiondConfig", "ExtensiondPolicy", "LinuxProcess", "Sockets", "WireProtocol",
        ]),
        .target(name: "Metrics", dependencies: [
            "DaemonSupport", "Processes", "ExtensionCoordination", "Pressure", "ControlProtocol", "EventLoop", "ExtensiondPolicy",
            "HTTPServer", "LinuxProcess", "PrometheusText", "Sockets",
        ]),

        // Daemon wiring.
        .target(
            name: "Supervisor",
            dependencies: [
                "DaemonSupport", "Output", "ProcessIsolation", "Processes", "ExtensionCoordination", "Pressure", "Hosts", "Control", "Metrics",
                "ExtensiondConfig", "ExtensiondPolicy", "Cgroup", "EventLoop", "Sockets", "WireProtocol", "ControlProtocol", "PrometheusText",
                "Systemd", "CLinux", "CMalloc", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "extensiond",
            dependencies: ["Supervisor", "DaemonSupport", "Output", "ExtensiondConfig", "ControlProtocol", "WireProtocol", "Systemd"],
            linkerSettings: staticLibstdcxx + packedRelocations + hotFunctionsFirst
        ),

        // Clients.
        .executableTarget(
            name: "supervisorctl",
            dependencies: ["ControlProtocol", "HostProtocol", "Sockets", "Spelling", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: staticLibstdcxx + packedRelocations
        ),
        .systemLibrary(name: "CMalloc"),
        .target(name: "ExtensionSDK", dependencies: ["WireProtocol", "CMalloc"]),
        .target(name: "ExtensionSDKTesting", dependencies: ["ExtensionSDK", "WireProtocol"]),
        .target(name: "HostClient", dependencies: ["HostProtocol"]),
        .executableTarget(name: "DemoPanel", dependencies: ["HostClient", "HostProtocol"]),
        .executableTarget(name: "DemoWidget", dependencies: ["ExtensionSDK"]),
        .executableTarget(name: "DemoApp", dependencies: ["HostClient", "HostProtocol"]),
        // The Today view: a host that serves the widgets as a web page (docs/HOSTS.md).
        .executableTarget(
            name: "extensiond-today",
            dependencies: ["HTTPServer", "EventLoop", "Sockets", "HostClient", "HostProtocol", "WireProtocol", "ControlProtocol"],
            resources: [
                .embedInCode("web/index-body.html"), .embedInCode("web/today.css"), .embedInCode("web/today.js"),
                .embedInCode("web/cards.js"), .embedInCode("web/template.js"), .embedInCode("web/system-body.html"),
                .embedInCode("web/system.js"), .embedInCode("web/frame.html"), .embedInCode("web/gallery.js"),
            ],
            linkerSettings: staticLibstdcxx
        ),

        // Test support: a real daemon in a throw-away cgroup, runtime and state dir; the
        // in-process host world (coordinator and host server on a virtual clock).
        .target(name: "ExtensiondTestSupport", dependencies: [
            "ControlProtocol", "HostProtocol", "WireProtocol", "DaemonSupport", "EventLoop", "ExtensionCoordination", "ExtensiondConfig",
            "ExtensiondPolicy", "Hosts", "ProcessIsolation", .product(name: "Logging", package: "swift-log"),
        ]),

        // Structure-aware fuzzing of a real daemon (`make fuzz`).
        .executableTarget(name: "extensiond-fuzz", dependencies: ["ExtensiondTestSupport"], path: "fuzz"),

        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "LinuxProcess", "Sockets", "ExtensiondTestSupport"]),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd", "EventLoop", "Sockets", "ExtensiondTestSupport"]),
        .testTarget(name: "TOMLTests", dependencies: ["TOML", "ExtensiondTestSupport"]),
        .testTarget(name: "ExtensiondConfigTests", dependencies: ["ExtensiondConfig", "ExtensiondTestSupport"]),
        .testTarget(name: "ExtensiondPolicyTests", dependencies: ["ExtensiondPolicy", "ExtensiondTestSupport"]),
        .testTarget(name: "CgroupTests", dependencies: ["Cgroup", "ExtensiondTestSupport"]),
        .testTarget(name: "LinuxProcessTests", dependencies: ["LinuxProcess", "CLinux", "Cgroup", "ExtensiondTestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "ExtensiondTestSupport"]),
        .testTarget(name: "WireProtocolTests", dependencies: ["WireProtocol", "HostProtocol", "HostClient", "ExtensionSDK", "ExtensiondTestSupport", "Sockets"]),
        .testTarget(name: "IntegrationTests", dependencies: ["ExtensiondTestSupport", "ControlProtocol", "HostProtocol"]),
        .testTarget(name: "SupervisorTests", dependencies: [
            "Supervisor", "DaemonSupport", "Output", "ProcessIsolation", "Processes", "ExtensionCoordination", "Pressure", "Cgroup", "ExtensiondPolicy", "ExtensiondConfig", "EventLoop", "ControlProtocol", "ExtensiondTestSupport", "WireProtocol",
            "HostProtocol", "PrometheusText", "Systemd",
            .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)

/// Each Swift function in a section of its own in release builds, so that lld can lay the
/// code the daemon runs out together (linker/extensiond.order; bench/README.md, "The floors:
/// the daemon's memory").
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release))]
}

/// The daemon's rooms that run per request are built for release without the run-time
/// exclusivity checks (`swift_beginAccess`): about an eighth of an update's instructions.
/// Debug builds, which the tests run, keep them; so do the targets of the libraries others
/// link (docs/ARCHITECTURE.md, "Exclusivity").
for target in package.targets where ["EventLoop", "Processes", "ExtensionCoordination", "Hosts", "Supervisor"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
}

// swift-tools-version:6.0
//
// The Swift SDK for extensiond widgets and actions, as a package of its own: depending on
// it fetches nothing else (the repository's root package also builds the daemon, whose
// argument parser, logging and histogram packages a widget does not need). Its targets
// are the root package's own sources (Sources/ holds links to them).
//
// In a widget's Package.swift (README.md, "Write a widget"; examples/swift-widget):
//   .package(path: "/path/to/extensiond/sdk/ExtensionSDK")
//   .product(name: "ExtensionSDK", package: "ExtensionSDK")
//   .product(name: "ExtensionSDKTesting", package: "ExtensionSDK")   (tests)
//
// A widget shipped to a device links the shared runtime of the extensiond-swift-runtime
// package: `swift build -c release -Xswiftc -no-toolchain-stdlib-rpath -Xlinker -rpath
// -Xlinker /usr/lib/extensiond/swift` (docs/PROTOCOL.md §5 adds the size flags), or the
// runtime statically with `--static-swift-stdlib` (README.md, "Deploy on a device").
import PackageDescription

let package = Package(
    name: "ExtensionSDK",
    products: [
        .library(name: "ExtensionSDK", targets: ["ExtensionSDK"]),
        .library(name: "ExtensionSDKTesting", targets: ["ExtensionSDKTesting"]),
    ],
    targets: [
        .target(name: "JSON"),
        .target(name: "WireProtocol", dependencies: ["JSON"]),
        .systemLibrary(name: "CMalloc"),
        .target(name: "ExtensionSDK", dependencies: ["WireProtocol", "CMalloc"]),
        .target(name: "ExtensionSDKTesting", dependencies: ["ExtensionSDK", "WireProtocol"]),
    ]
)

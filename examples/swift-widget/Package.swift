// swift-tools-version:6.0
// A widget outside the extensiond repository: it depends on the SDK package alone
// (sdk/ExtensionSDK of a clone), which fetches nothing else. README.md, "Write a widget".
import PackageDescription

let package = Package(
    name: "HelloWidget",
    dependencies: [.package(path: "../../sdk/ExtensionSDK")],
    targets: [
        .target(name: "HelloWidgetCore", dependencies: [.product(name: "ExtensionSDK", package: "ExtensionSDK")]),
        .executableTarget(name: "HelloWidget", dependencies: ["HelloWidgetCore", .product(name: "ExtensionSDK", package: "ExtensionSDK")]),
        .testTarget(name: "HelloWidgetTests", dependencies: [
            "HelloWidgetCore", .product(name: "ExtensionSDKTesting", package: "ExtensionSDK"),
        ]),
    ]
)

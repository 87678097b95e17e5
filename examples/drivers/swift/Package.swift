// swift-tools-version: 6.0
// A FlowCheck driver skeleton: one executable, Foundation only. Copy this folder into your
// SDK's repository (or next to it) and build it; FlowCheck runs the binary, one process a flow.
import PackageDescription

let package = Package(
    name: "my-sdk-driver",
    // YOUR SDK: depend on it here, e.g. from flowcheck/driver/ in your SDK's repository
    //     dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "my-sdk-driver"
            // and here: dependencies: [.product(name: "MySDK", package: "my-sdk")]
        ),
    ]
)

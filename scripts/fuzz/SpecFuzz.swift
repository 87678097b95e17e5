// libFuzzer entry point for the spec loader.
//
// Compiled into the same module as Sources/FlowCheckSpec/*.swift (see scripts/fuzz.sh), so it
// reaches the loader without `import FlowCheckSpec`. The loader must turn any bytes into a spec
// or diagnostics, never trap: spec files come from users and from other teams' repositories.

@_cdecl("LLVMFuzzerTestOneInput")
public func specFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let loader = SpecLoader()
    switch loader.decode(bytes, file: "fuzz.json") {
    case .valid(let spec):
        // Rendering touches every decoded value, as the runner and reports do.
        _ = String(describing: spec)
    case .invalid(let diagnostics):
        for diagnostic in diagnostics { _ = diagnostic.description }
    }
    do {
        let fixtures = try loader.decodeFixtures(bytes, file: "fixtures.json")
        _ = String(describing: fixtures)
    } catch {
        _ = error.description
    }
    return 0
}

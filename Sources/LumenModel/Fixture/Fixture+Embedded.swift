extension Fixture {
    /// The text of `fixtures/demo-home.json` as built into the binary, used when `lumend` runs with no fixture.
    public static var embeddedDemoHomeJSON: [UInt8] { PackageResources.demo_home_json }

    /// The fixtures built into lumend, by name, for `lumend --print-fixture NAME`.
    public static var embedded: [(name: String, json: [UInt8])] { [("demo-home", embeddedDemoHomeJSON)] }

    /// The embedded demo home.
    public static func demoHome() -> Fixture {
        do {
            return try Fixture(json: embeddedDemoHomeJSON)
        } catch {
            // A test loads the embedded copy, so this cannot ship broken.
            fatalError("the embedded demo home is invalid: \(error)")
        }
    }
}

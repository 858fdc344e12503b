/// Small fixtures for tests, as JSON text.
public enum TestFixtures {
    /// Two rooms, four lights of every kind, no latency: writes apply the moment the clock is advanced by 0.
    public static let instantHome = """
        {
          "schema": 1, "id": "test-home", "name": "Test Home", "seed": 7,
          "defaults": {"latency": "instant", "timeoutMs": 1000},
          "rooms": [
            {"id": "lab", "name": "Lab", "lights": [
              {"id": "lab.color", "name": "Color", "kind": "color"},
              {"id": "lab.plug", "name": "Plug", "kind": "onoff", "state": {"isOn": false}},
              {"id": "lab.dim", "name": "Dimmer", "kind": "dimmable", "state": {"isOn": false, "brightness": 50}}
            ]},
            {"id": "attic", "name": "Attic", "lights": [
              {"id": "attic.tunable", "name": "Tunable", "kind": "ambiance"}
            ], "undiscovered": [
              {"delayMs": 1000, "light": {"id": "attic.new", "name": "New", "kind": "color"}}
            ]}
          ]
        }
        """

    /// The path of the repository's `fixtures/` directory, found from this source file.
    public static var repositoryFixtures: String {
        let here = #filePath
        let tests = here.range(of: "/Tests/")!.lowerBound
        return String(here[..<tests]) + "/fixtures"
    }

    /// The repository's root directory.
    public static var repositoryRoot: String {
        let here = #filePath
        return String(here[..<here.range(of: "/Tests/")!.lowerBound])
    }
}

import Foundation
import LumenProtocol
import LumenSimulation
import LumenTestSupport
import Testing

@testable import LumenModel

/// Lights read straight from their bytes give what the ordinary reading gives, and anything outside their
/// plain shape is left to the ordinary reading.
@Suite("Lights read from their bytes")
struct PlainLightTests {
    /// The fixture the ordinary reading (a tree for each light) gives.
    func treeRead(_ bytes: [UInt8]) -> Fixture? { Fixture.read(bytes, collectingEveryProblem: true).0 }

    @Test(arguments: FixtureTests.fixtureFiles)
    func everyShippedFixtureAndItsSnapshotReadTheSameBothWays(name: String) async throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: TestFixtures.repositoryFixtures + "/" + name)))
        let fixture = try Fixture(json: bytes)
        #expect(fixture == treeRead(bytes))
        // Its snapshot after some changes: every kind of state, as lumend writes it.
        let home = Home(fixture: fixture, clock: .virtual, seed: 3)
        var snapshot = await home.snapshot()
        snapshot.generation = 2
        let saved = Array(snapshot.jsonValue.serialized().utf8)
        let read = try Fixture(json: saved)
        #expect(read == treeRead(saved))
        #expect(read.rooms.flatMap(\.lights) == snapshot.rooms.flatMap(\.lights))
        // And the byte reader took every light, unless one has settings of its own.
        let plain = snapshot.rooms.flatMap(\.lights).allSatisfy { $0.settings.isEmpty }
        #expect((Fixture.readPlainLights(saved) != nil) == plain, "plain: \(plain)")
    }

    @Test func statesOfEveryKindAndRangeEdgeReadTheSame() throws {
        let lights = [
            #"{"id":"a","name":"A","kind":"color","state":{"isOn":false,"brightness":1,"colorTemperature":153,"color":{"x":0,"y":1}}}"#,
            #"{"id":"b","name":"B","kind":"ambiance","state":{"brightness":100.0,"colorTemperature":500},"reachable":false}"#,
            #"{ "id" : "c" , "name" : "C" , "kind" : "dimmable" , "state" : { "brightness" : 5e1 } }"#,
            #"{"id":"d","name":"D","kind":"onoff","manufacturer":"Acme","product":"Plug","state":{}}"#,
            #"{"id":"e","name":"E","kind":"color","state":{"color":{"y":0.5,"x":0.25}}}"#,
        ]
        for light in lights {
            let plain = Array(light.utf8).withUnsafeBufferPointer { LightFixture.read(plainBytes: $0) }
            let tree = try LightFixture(cursor: JSONCursor(JSONParser.parse(light)))
            #expect(plain == tree, "\(light)")
        }
    }

    /// Each is either wrong or outside the plain shape: the byte reader declines it, and a document holding
    /// it reads as the ordinary reading says (loaded, or refused with the same problem).
    @Test(arguments: [
        #"{"id":"a","name":"A\u0041","kind":"color"}"#,  // an escape
        #"{"id":"a","name":"Ä","kind":"color"}"#,  // not ASCII
        #"{"id":"a","name":"A","kind":"color","reachable":null}"#,  // null
        #"{"id":"a","name":"A","name":"B","kind":"color"}"#,  // a key twice
        #"{"id":"a","name":"A","kind":"color","timeoutMs":500}"#,  // a setting of its own
        #"{"id":"a","name":"A","kind":"lava"}"#,  // a kind that is not one
        #"{"id":"a","name":"A","kind":"onoff","state":{"brightness":50}}"#,  // a state its kind lacks
        #"{"id":"a","name":"A","kind":"color","state":{"brightness":140}}"#,  // out of range
        #"{"id":"a","name":"A","kind":"color","state":{"colorTemperature":300.5}}"#,  // not an integer
        #"{"id":"a","name":"A","kind":"color","state":{"brightness":01}}"#,  // a leading zero
        #"{"id":"a b","name":"A","kind":"color"}"#,  // a bad ID
        #"{"name":"A","kind":"color"}"#,  // no ID
        #"{"id":"a","name":"A","kind":"color"} x"#,  // text after it
    ])
    func anythingOutsideThePlainShapeIsLeftToTheOrdinaryReading(light: String) throws {
        #expect(Array(light.utf8).withUnsafeBufferPointer { LightFixture.read(plainBytes: $0) } == nil)
        let document = Array(
            #"{"schema":1,"id":"h","name":"H","rooms":[{"id":"r","name":"R","lights":[\#(light)]}]}"#.utf8)
        let ordinary = Fixture.read(document, collectingEveryProblem: true)
        let loaded = Result { try Fixture(json: document) }
        switch loaded {
        case .success(let fixture): #expect(fixture == ordinary.0)
        case .failure(let error): #expect(ordinary.problems.contains(error as! FixtureError), "\(error)")
        }
    }
}

import LumenProtocol
import Testing

@Suite("Plain requests read without a tree")
struct PlainRequestTests {
    static func read(_ text: String) -> PlainRequest? { PlainRequest(line: Array(text.utf8)) }

    @Test func readsAPlainGet() throws {
        let request = try #require(
            Self.read(#"{"jsonrpc":"2.0","id":7,"method":"get","params":{"scope":0,"connection":"name"}}"#))
        #expect(request.id == 7)
        #expect(request.method == "get")
        #expect(request.scope.intValue == 0)
        #expect(request.connection == "name")
        #expect(request.value == nil)
        #expect(request.transitionMs == nil)
    }

    @Test func readsASetWhoseMembersComeInAnyOrderWithSpaceBetween() throws {
        let request = try #require(
            Self.read(
                #" { "params" : { "transitionMs" : 250 , "value" : 42.5 , "connection" : "brightness" , "scope" : 3 } , "method" : "set" , "id" : "a-1" , "jsonrpc" : "2.0" } "#
            ))
        #expect(request.id == "a-1")
        #expect(request.method == "set")
        #expect(request.scope.intValue == 3)
        #expect(request.connection == "brightness")
        #expect(request.value == .number(JSONParserTests.number("42.5")))
        #expect(request.transitionMs?.text == "250")
    }

    @Test func keepsNumbersAsWritten() throws {
        let request = try #require(
            Self.read(#"{"jsonrpc":"2.0","id":1.50,"method":"set","params":{"scope":2.0,"connection":"a","value":-0}}"#)
        )
        #expect(request.id == .number(JSONParserTests.number("1.50")))
        #expect(request.scope.text == "2.0")
        #expect(request.value == .number(JSONParserTests.number("-0")))
    }

    @Test(arguments: [
        // Not the plain shape: the general way reads these.
        #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":0,"connection":"name","value":null}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":0,"connection":"color","value":{"x":0.3,"y":0.3}}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":0,"connection":"name","value":"a\"b"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":0,"connection":"name","value":"Küche"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"connection":"name","extra":1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"connection":"name"},"extra":1}"#,
        #"{"jsonrpc":"2.0","id":1,"id":2,"method":"get","params":{"scope":0,"connection":"name"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"scope":1,"connection":"name"}}"#,
        #"{"jsonrpc":"2.0","method":"get","params":{"scope":0,"connection":"name"}}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"get","params":{"scope":0,"connection":"name"}}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"get","params":{"scope":0,"connection":"name"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":"0","connection":"name"}}"#,
        #"{"jsonrpc":"2.0","id":1x,"method":"get","params":{"scope":0,"connection":"name"}}"#,
        #"{"jsonrpc":"2.0","id":01,"method":"get","params":{"scope":0,"connection":"name"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":0,"connection":"isOn","value":truex}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"connection":"name"}} x"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"connection":"name"}"#,
        #"[{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"connection":"name"}}]"#,
        "",
    ])
    func declinesWhatIsNotThePlainShape(_ line: String) {
        #expect(Self.read(line) == nil)
    }

    /// Lines near the plain shape: each seed with every byte deleted, replaced or preceded by a byte that
    /// matters to JSON's grammar.
    static var nearLines: [[UInt8]] {
        let seeds = [
            #"{"jsonrpc":"2.0","id":7,"method":"get","params":{"scope":0,"connection":"name"}}"#,
            #"{"jsonrpc":"2.0","id":"a","method":"set","params":{"scope":2,"connection":"isOn","value":true,"transitionMs":250}}"#,
            #"{ "params" : { "value" : "Lamp" , "connection" : "name" , "scope" : 1.0 } , "method" : "set" , "id" : -1.5e2 , "jsonrpc" : "2.0" }"#,
            #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":3,"connection":"brightness","value":false}}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#""\{}[],:0-e.+ tfnx"#.utf8) + [0x00, 0x09, 0x0A, 0x7F, 0x80, 0xC3]
        var lines: [[UInt8]] = []
        for seed in seeds {
            lines.append(seed)
            for index in seed.indices {
                var deleted = seed
                deleted.remove(at: index)
                lines.append(deleted)
                for byte in alphabet {
                    var replaced = seed
                    replaced[index] = byte
                    lines.append(replaced)
                    var inserted = seed
                    inserted.insert(byte, at: index)
                    lines.append(inserted)
                }
            }
        }
        return lines
    }

    @Test func everyLineItReadsIsReadTheSameByTheParser() throws {
        var read = 0
        for line in Self.nearLines {
            guard let request = PlainRequest(line: line) else { continue }
            read += 1
            let document = try? JSONParser.parse(line)
            #expect(
                document.map(request.matches) == true,
                "read differently: \(String(decoding: line, as: UTF8.self))")
        }
        // Many near lines are still plain requests (a space added, a digit changed): the check was exercised.
        #expect(read > 500)
    }

    @Test func aRequestDoesNotMatchALineWithAnotherMember() throws {
        let line = #"{"jsonrpc":"2.0","id":7,"method":"get","params":{"scope":0,"connection":"name"}}"#
        let request = try #require(Self.read(line))
        #expect(request.matches(try JSONParser.parse(line)))
        let other = #"{"jsonrpc":"2.0","id":7,"method":"get","params":{"scope":0,"connection":"name","value":1}}"#
        #expect(!request.matches(try JSONParser.parse(other)))
        let renamed = #"{"jsonrpc":"2.0","id":7,"method":"get","params":{"scope":0,"connection":"isOn"}}"#
        #expect(!request.matches(try JSONParser.parse(renamed)))
    }
}

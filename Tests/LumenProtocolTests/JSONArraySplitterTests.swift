import LumenProtocol
import Testing

@Suite("Where a batch's elements lie")
struct JSONArraySplitterTests {
    func pieces(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        return JSONArraySplitter.elements(in: bytes)?.map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test func eachElementIsFoundWhateverItHolds() {
        #expect(
            pieces(#" [ {"a":"],[{\"}"} , [1,[2]],"x\\",3 ,true, null,-1.5e3 ] "#)
                == [#"{"a":"],[{\"}"}"#, "[1,[2]]", #""x\\""#, "3", "true", "null", "-1.5e3"])
        #expect(pieces("[]") == [])
        #expect(pieces("[1]") == ["1"])
    }

    @Test(arguments: ["", "{}", "[", "[1,", "[1 2]", "[1,]", "[,1]", "[1]]", "[1] x", "[{]", "[\"open]", "[}"])
    func whatIsNotOneArrayIsLeftToTheParser(text: String) {
        #expect(pieces(text) == nil)
    }
}

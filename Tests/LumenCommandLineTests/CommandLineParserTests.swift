import LumenCommandLine
import Testing

struct Sample: Sendable, Equatable {
    var socket: String?
    var verbose = false
    var mode = Mode.fast
    var count = 0

    enum Mode: String, CaseIterable, Sendable { case fast, slow }

    static let options: [CommandLineOption<Sample>] = [
        .value("--socket", valueName: "PATH", help: "Where to connect. Default: the usual place.", completion: .file) {
            $0.socket = $1
        },
        .flag("-v", "--verbose", help: "Say more.") { $0.verbose = true },
        .choice("--mode", help: "How fast.") { (sample, mode: Mode) in sample.mode = mode },
        .value("--count", valueName: "N", help: "How many.") {
            $0.count = try OptionValue.count($1, option: "--count", in: 1...9)
        },
    ]
    static let parser = CommandLineParser(program: "sample", options: options)
}

@Suite("Command-line parsing")
struct CommandLineParserTests {
    @Test func valuesComeSeparateOrAfterAnEqualsSignAndOperandsAnywhere() throws {
        var sample = Sample()
        let operands = try Sample.parser.parse(
            ["get", "--socket", "/s", "-v", "x", "--mode=slow", "--count=3", "--", "--not-an-option"], into: &sample)
        #expect(sample == Sample(socket: "/s", verbose: true, mode: .slow, count: 3))
        #expect(operands == ["get", "x", "--not-an-option"])
    }

    @Test func eachMistakeSaysWhatIsWrong() {
        func mistake(_ arguments: [String]) -> String? {
            var sample = Sample()
            do {
                _ = try Sample.parser.parse(arguments, into: &sample)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(mistake(["--sockett", "/s"]) == "unknown option '--sockett'; see 'sample --help'")
        #expect(mistake(["-x"]) == "unknown option '-x'; see 'sample --help'")
        #expect(mistake(["--socket"]) == "--socket needs a value (PATH); see 'sample --help'")
        #expect(mistake(["--socket", "--verbose"]) == "--socket needs a value (PATH); see 'sample --help'")
        #expect(mistake(["--verbose=yes"]) == "--verbose takes no value")
        #expect(mistake(["--mode", "medium"]) == "--mode must be 'fast' or 'slow', not 'medium'")
        #expect(mistake(["--count", "12"]) == "--count must be a whole number from 1 to 9, not '12'")
        // A negative number is an operand, not an unknown option.
        #expect(mistake(["-5"]) == nil)
    }

    @Test func helpListsEveryOptionWithItsValueAndWrapsItsText() {
        let help = Sample.parser.optionsHelp(width: 54)
        #expect(
            help == """
                  --socket PATH            Where to connect. Default:
                                           the usual place.
                  -v, --verbose            Say more.
                  --mode fast|slow         How fast.
                  --count N                How many.
                """)
        let long = HelpText.entry(label: "--a-very-long-option VALUE", text: "Text.")
        #expect(long == "  --a-very-long-option VALUE\n" + String(repeating: " ", count: 27) + "Text.")
    }
}

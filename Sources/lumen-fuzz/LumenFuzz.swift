import LumenFuzzing

#if canImport(Glibc)
    import Glibc
#endif

#if LUMEN_FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    /// The target libFuzzer's callback runs: chosen once, before the driver starts, and only read after.
    nonisolated(unsafe) var selectedTarget = FuzzTarget.snapshot
#endif

/// `lumen-fuzz`: with `LUMEN_FUZZ_TARGET` naming a ``FuzzTarget`` (its raw value, as `make fuzz` names them), a
/// libFuzzer driver (when built with `-sanitize=fuzzer` and `-D LUMEN_FUZZING`, as `make fuzz` does); otherwise it
/// runs the target once on each file named, so a crash input can be replayed by hand.
@main
struct LumenFuzz {
    static func complain(_ text: String) {
        let line = "lumen-fuzz: \(text)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    static func main() {
        let name = getenv("LUMEN_FUZZ_TARGET").map { String(cString: $0) } ?? "snapshot"
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            complain("unknown LUMEN_FUZZ_TARGET '\(name)'; one of \(names)")
            exit(2)
        }
        #if LUMEN_FUZZING
            selectedTarget = target
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { data, count in
                    selectedTarget.runBlocking(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
                    return 0
                })
        #else
            for path in CommandLine.arguments.dropFirst() {
                guard let file = fopen(path, "rb") else {
                    complain("cannot open \(path)")
                    exit(1)
                }
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = fread(&buffer, 1, buffer.count, file)
                    if count == 0 { break }
                    bytes += buffer[0..<count]
                }
                fclose(file)
                target.runBlocking(bytes)
            }
        #endif
    }
}

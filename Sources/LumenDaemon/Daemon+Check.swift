import LumenHue
import LumenModel
import LumenProtocol
import LumenStore

#if canImport(Glibc)
    import Glibc
#endif

extension Daemon {
    /// `lumend --check`: every problem of each fixture, as `FILE:LINE:COLUMN: PATH: what is wrong`; 1 when
    /// any has one; 128 + the signal's number when SIGTERM or SIGINT ended a wait for a pipe's writer.
    ///
    /// Each line is written with its control characters escaped (``escapingControlCharacters(_:)``): IDs, keys
    /// and values quoted in a problem come from the file, which is not trusted.
    static func check(_ paths: [String]) -> Int32 {
        func problem(_ line: String) { writeStderr(escapingControlCharacters(line) + "\n") }
        func passed(_ line: String) { writeStdout(escapingControlCharacters(line) + "\n") }
        var status: Int32 = 0
        for path in paths {
            let bytes: [UInt8]
            do {
                guard let read = try readNamedFile(path) else {
                    problem("\(path): no such file")
                    status = 1
                    continue
                }
                bytes = read.bytes
            } catch let stopped as StoppedWhileWaiting {
                // Not checked: as a command a signal ended, with what it had said so far. The path leads the
                // line, and is not said again.
                problem("\(path): not checked: \(stopped.stoppedBy) while waiting for it to be written")
                switch stopped.cause {
                case .signal(let number): return 128 + number
                // A check watches no parent; were it to, the parent's exit would be a failure to check.
                case .parentExited: return 1
                }
            } catch {
                problem("\(path): cannot read it: \(error)")
                status = 1
                continue
            }
            var problems = Fixture.problems(json: bytes)
            let fixture = problems.isEmpty ? try? Fixture(json: bytes) : nil
            // A front's record is read by the front alone, here as at start.
            if let fixture, let problem = HueBridge.recordProblem(in: fixture) { problems.append(.shape(problem)) }
            // In the order they come in the file.
            let located = problems.map { problem -> (offset: Int?, text: String) in
                switch problem {
                case .syntax(let error):
                    return (error.offset, "not valid JSON: \(error.message)")
                case .shape(let error):
                    // A member that is missing is shown where the value that lacks it begins.
                    var offset: Int?
                    var path: JSONPath? = error.path
                    while offset == nil, let here = path {
                        offset = JSONParser.offset(of: here, in: bytes)
                        path = here.parent
                    }
                    return (offset, "\(error.path): \(error.message)")
                }
            }
            for (offset, text) in located.sorted(by: { ($0.offset ?? .max) < ($1.offset ?? .max) }) {
                let position = offset.map { "\(TextPosition(offset: $0, in: bytes)):" } ?? ""
                problem("\(path):\(position) \(text)")
            }
            if problems.isEmpty, let fixture {
                let lights = fixture.rooms.reduce(0) { $0 + $1.lights.count }
                let rooms = fixture.rooms.count
                passed(
                    "\(path): ok (\(rooms) room\(rooms == 1 ? "" : "s"), \(lights) light\(lights == 1 ? "" : "s"))")
            } else {
                status = 1
            }
        }
        return status
    }

    /// `text` with each control character written out as `\u{…}`, its code in hexadecimal with at least two
    /// digits (an escape becomes `\u{1B}`): C0 (U+0000–U+001F, a newline and a tab too), DEL (U+007F) and C1
    /// (U+0080–U+009F). A terminal obeys these rather than showing them: an escape sequence can clear it,
    /// retitle it or recolour what follows, a carriage return can hide the text before it. Every other
    /// character, a backslash included, is left as it is.
    static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                escaped.append(
                    contentsOf: "\\u{\(String(hex: scalar.value, digits: 2, uppercase: true))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}

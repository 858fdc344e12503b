import FoundationEssentials
import Glibc
import LumenProtocol

/// Writes to stdout and stderr; tables line up their columns.
enum Output {
    static func line(_ text: String = "", terminator: String = "\n") {
        write(text + terminator, to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write("lumenctl: " + text + "\n", to: STDERR_FILENO)
    }

    /// Writes all of `text` to `fd`, going on after a short or interrupted write; stops at an error.
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    static func json(_ value: JSONValue) { line(value.serialized()) }

    /// `text` without the line breaks that begin or end it.
    static func trimmingNewlines(_ text: String) -> String {
        String(text.drop(while: \.isNewline).reversed().drop(while: \.isNewline).reversed())
    }

    /// Prints rows under a header (the "legend", left out with --no-legend), columns padded to line up.
    /// Cells may carry terminal escapes; `visible` widths ignore them.
    static func table(_ header: [String], _ rows: [[String]], legend: Bool, color: Bool) {
        let all = (legend ? [header] : []) + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], visibleWidth(cell)) }
        }
        for (number, row) in all.enumerated() {
            var text = ""
            for (index, cell) in row.enumerated() {
                let last = index == row.count - 1
                text += last ? cell : cell + String(repeating: " ", count: widths[index] - visibleWidth(cell) + 2)
            }
            if legend && number == 0 && color { text = "\u{1B}[1m" + text + "\u{1B}[0m" }
            line(text)
        }
    }

    static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if scalar == "m" { inEscape = false }
            } else if scalar == "\u{1B}" {
                inEscape = true
            } else {
                width += 1
            }
        }
        return width
    }
}

/// The colour a light shows, as sRGB, for the status swatch.
enum Swatch {
    /// A two-character block in the light's actual colour and brightness.
    static func block(state: JSONValue, kind: String) -> String {
        let (r, g, b) = rgb(state: state, kind: kind)
        return "\u{1B}[48;2;\(r);\(g);\(b)m  \u{1B}[0m"
    }

    static func rgb(state: JSONValue, kind: String) -> (Int, Int, Int) {
        guard state["isOn"]?.boolValue == true else { return (20, 20, 20) }
        let level = (state["brightness"]?.doubleValue ?? 100) / 100
        var base: (Double, Double, Double)
        if kind == "color", let x = state["color"]?["x"]?.doubleValue, let y = state["color"]?["y"]?.doubleValue {
            base = fromXY(x: x, y: y)
        } else if let mireds = state["colorTemperature"]?.doubleValue {
            base = fromKelvin(1_000_000 / mireds)
        } else {
            base = fromKelvin(2_700)
        }
        func channel(_ value: Double) -> Int { Int((max(0, min(1, value * level)) * 255).rounded()) }
        return (channel(base.0), channel(base.1), channel(base.2))
    }

    /// CIE 1931 xy at full luminance to gamma-encoded sRGB, scaled so the brightest channel is 1.
    static func fromXY(x: Double, y: Double) -> (Double, Double, Double) {
        let y = max(y, 0.0001)
        let X = x / y
        let Z = (1 - x - y) / y
        var r = 3.2406 * X - 1.5372 - 0.4986 * Z
        var g = -0.9689 * X + 1.8758 + 0.0415 * Z
        var b = 0.0557 * X - 0.2040 + 1.0570 * Z
        let peak = max(r, g, b, 1e-9)
        (r, g, b) = (max(0, r / peak), max(0, g / peak), max(0, b / peak))
        func gamma(_ c: Double) -> Double { c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055 }
        return (gamma(r), gamma(g), gamma(b))
    }

    /// A black-body colour (Tanner Helland's fit), good enough for a swatch.
    static func fromKelvin(_ kelvin: Double) -> (Double, Double, Double) {
        let t = kelvin / 100
        let r = t <= 66 ? 255 : 329.698727446 * pow(t - 60, -0.1332047592)
        let g = t <= 66 ? 99.4708025861 * log(t) - 161.1195681661 : 288.1221695283 * pow(t - 60, -0.0755148492)
        let b = t >= 66 ? 255 : (t <= 19 ? 0 : 138.5177312231 * log(t - 10) - 305.0447927307)
        func unit(_ v: Double) -> Double { max(0, min(255, v)) / 255 }
        return (unit(r), unit(g), unit(b))
    }
}

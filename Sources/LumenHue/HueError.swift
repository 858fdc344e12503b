import LumenProtocol

/// An error as the Hue API v1 reports it: `[{"error": {"type", "address", "description"}}]`, with HTTP 200
/// (a bridge reports errors in the body), except "too many requests", which is HTTP 429 as a bridge's is.
struct HueError: Error, Sendable {
    /// Hue's error type: 1 unauthorized user, 2 invalid JSON, 3 resource not available, 4 method not available,
    /// 5 invalid or missing body, 6 parameter not available, 7 invalid value, 101 link button not pressed,
    /// 201 device is off, 901 internal error.
    var type: Int
    /// The resource or parameter it concerns (`/lights/3/state/bri`).
    var address: String
    /// What is wrong.
    var description: String
    /// The HTTP status it goes with.
    var status = 200

    /// The error entry of a Hue result list.
    var jsonValue: JSONValue {
        .object([
            "error": .object([
                "type": .int(type), "address": .string(address), "description": .string(description),
            ])
        ])
    }

    /// The response that carries it alone.
    var response: HTTPResponse { .json(.array([jsonValue]), status: status) }

    static let unauthorized = HueError(type: 1, address: "/", description: "unauthorized user")

    static func notAvailable(_ address: String) -> HueError {
        HueError(type: 3, address: address, description: "resource, \(address), not available")
    }

    /// Hue's refusal of a body that is empty or not a JSON object of parameters.
    static func missingParameters(at address: String) -> HueError {
        HueError(type: 5, address: address, description: "invalid/missing parameters in body")
    }

    static func parameterNotAvailable(_ name: String, at address: String) -> HueError {
        HueError(type: 6, address: "\(address)/\(name)", description: "parameter, \(name), not available")
    }

    static func invalidValue(_ value: JSONValue, of name: String, at address: String) -> HueError {
        HueError(
            type: 7, address: "\(address)/\(name)",
            description: "invalid value, \(value.serialized()), for parameter, \(name)")
    }

    /// Hue's internal error at `address`, saying what went wrong (`detail`): Lumen's failure, not the app's.
    static func internalError(_ detail: String, at address: String = "/") -> HueError {
        HueError(type: 901, address: address, description: "Internal error, \(detail)")
    }

    /// Hue's refusal of `parameter` at `address` for a light that is off.
    static func deviceOff(_ parameter: String, at address: String) -> HueError {
        HueError(
            type: 201, address: "\(address)/\(parameter)",
            description: "parameter, \(parameter), is not modifiable. Device is set to off.")
    }

    static func tooManyRequests(_ message: String) -> HueError {
        HueError(type: 901, address: "/", description: "too many requests; \(message)", status: 429)
    }
}

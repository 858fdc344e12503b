import LumenProtocol

/// An error as the Hue API v2 reports it: `{"errors": [{"description"}], "data": []}` with an HTTP status that
/// says what kind it is (400 a bad request, 403 a bad key, 404 an unknown resource, 429 too busy).
struct HueV2Error: Error, Sendable {
    /// What is wrong.
    var description: String
    /// The HTTP status it goes with.
    var status: Int

    /// The response that carries it.
    var response: HTTPResponse {
        .json(
            .object(["errors": .array([.object(["description": .string(description)])]), "data": []]), status: status)
    }

    static let unauthorized = HueV2Error(description: "unauthorized user", status: 403)

    static func notFound(_ path: String) -> HueV2Error {
        HueV2Error(description: "Not Found: resource, \(path), not found", status: 404)
    }

    static func badRequest(_ description: String) -> HueV2Error {
        HueV2Error(description: description, status: 400)
    }

    /// A 400 for `value`, given for `property`, which is not one the property takes.
    static func invalidValue(_ value: JSONValue, for property: String) -> HueV2Error {
        badRequest("invalid value, \(value.serialized()), for property, \(property)")
    }
}

extension HueV2Error {
    /// The v2 form of what the v1 code refused: a missing resource is 404, a bad body or value 400, a device
    /// switched off 400 as a bridge answers it, too many requests 429, anything else 500.
    init(_ error: HueError) {
        description = error.description
        status =
            switch error.type {
            case 1: 403
            case 3: 404
            case 2, 5, 6, 7, 201, 301, 302, 305, 306, 402, 404: 400
            default: error.status == 429 ? 429 : 500
            }
    }
}

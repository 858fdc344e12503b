import LumenProtocol

extension HueBridge {
    /// `GET /description.xml`: the UPnP device description a bridge serves to whoever found it by SSDP, without
    /// a user: its name, model and serial number, as `/api/config` gives them.
    func description(for request: HTTPRequest) async -> HTTPResponse {
        let host = request.headers["host"] ?? "127.0.0.1"
        let serial = identity.mac.split(separator: ":").joined()
        let name = Self.xmlEscaped(await home.name)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" ?>
            <root xmlns="urn:schemas-upnp-org:device-1-0">
            <specVersion><major>1</major><minor>0</minor></specVersion>
            <URLBase>\(request.isSecure ? "https" : "http")://\(Self.xmlEscaped(host))/</URLBase>
            <device>
            <deviceType>urn:schemas-upnp-org:device:Basic:1</deviceType>
            <friendlyName>\(name) (\(Self.xmlEscaped(host)))</friendlyName>
            <manufacturer>Signify</manufacturer>
            <manufacturerURL>http://www.philips-hue.com</manufacturerURL>
            <modelDescription>Philips hue Personal Wireless Lighting</modelDescription>
            <modelName>Philips hue bridge 2015</modelName>
            <modelNumber>BSB002</modelNumber>
            <modelURL>http://www.philips-hue.com</modelURL>
            <serialNumber>\(serial)</serialNumber>
            <UDN>uuid:2f402f80-da50-11e1-9b23-\(serial)</UDN>
            <presentationURL>index.html</presentationURL>
            </device>
            </root>

            """
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/xml; charset=utf-8")], body: Array(xml.utf8))
    }

    /// `text` with XML's special characters written as entities.
    static func xmlEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}

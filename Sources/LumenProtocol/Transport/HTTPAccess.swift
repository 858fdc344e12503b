#if canImport(Glibc)
    import Glibc
#endif

/// Which requests lumend's HTTP fronts take as meant for lumend: those whose `Host` names lumend itself (an IP
/// address, `localhost`, or a DNS name the operator lists), and that come from no page but lumend's own.
///
/// A page elsewhere reaches lumend in two ways, and each is refused here. Through DNS rebinding, a name the
/// attacker owns is pointed at lumend's address: the browser sends that name as `Host`, and no name lumend was
/// not told of is taken. Directly, a page's script sends its own `Origin`, which is not lumend's.
///
/// ```swift
/// let access = HTTPAccess(allowedHosts: ["bridge.lan"])
/// if let why = access.refusal(of: request) { return .now(.text(why + "\n", status: 403)) }
/// ```
package struct HTTPAccess: Sendable, Hashable {
    /// DNS names, besides addresses and `localhost`, that name lumend (lower case, without a port).
    package var allowedHosts: Set<String>

    /// Access for requests to lumend by address, `localhost`, or one of `allowedHosts`.
    package init(allowedHosts: Set<String> = []) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
    }

    /// Why `request` is refused, if it is, in words that say what to do instead; `nil` when it is taken.
    package func refusal(of request: HTTPRequest) -> String? {
        let host = request.headers["host"] ?? ""
        let scheme = request.isSecure ? "https" : "http"
        guard namesLumend(host) else {
            return "Host '\(host)' is not an IP address, localhost or a name lumend is given (--http-host); "
                + "use lumend's address, as \(scheme)://127.0.0.1:PORT"
        }
        if let origin = request.headers["origin"], origin.lowercased() != "\(scheme)://\(host.lowercased())" {
            return "requests from the origin '\(origin)' are refused: only lumend's own pages may call it "
                + "from a browser"
        }
        return nil
    }

    /// Whether `host` (a `Host` header: a name or address, maybe with a port) names lumend.
    package func namesLumend(_ host: String) -> Bool {
        if Self.namesAnAddress(host) { return true }
        guard !allowedHosts.isEmpty, !host.hasPrefix("[") else { return false }
        var name = Substring(host.lowercased())
        if let colon = name.lastIndex(of: ":") {
            guard name[colon...].dropFirst().allSatisfy(\.isNumber) else { return false }
            name = name[..<colon]
        }
        return allowedHosts.contains(String(name))
    }

    /// Whether `host` (a `Host` header: a name or address, maybe with a port) is an IP address or `localhost`,
    /// which no DNS name can be rebound to.
    package static func namesAnAddress(_ host: String) -> Bool {
        var name = Substring(host.lowercased())
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]"),
                name[close...].dropFirst().allSatisfy({ $0 == ":" || $0.isNumber })
            else { return false }
            var address = in6_addr()
            return inet_pton(AF_INET6, String(name[name.index(after: name.startIndex)..<close]), &address) == 1
        }
        if let colon = name.lastIndex(of: ":") { name = name[..<colon] }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        var address = in_addr()
        return inet_pton(AF_INET, String(name), &address) == 1
    }
}

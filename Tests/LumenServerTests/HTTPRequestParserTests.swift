import Testing

@testable import LumenServer

/// Requests read as RFC 9112 frames them, and every framing that two readers could take differently refused.
@Suite("HTTP request parser")
struct HTTPRequestParserTests {
    /// What the parser makes of `text`, given whole: the requests, then the refusal if one came.
    func parse(_ text: String, bodyBytes: Int = 1_000) -> (
        requests: [(HTTPRequestParser.Head, String)], refusal: HTTPRequestParser.Refusal?
    ) {
        var parser = HTTPRequestParser(headBytes: 2_000, bodyBytes: { _ in bodyBytes })
        parser.append(Array(text.utf8))
        var requests: [(HTTPRequestParser.Head, String)] = []
        while true {
            do {
                switch try parser.next() {
                case .needMore: return (requests, nil)
                case .head: continue
                case .request(let head, let body): requests.append((head, String(decoding: body, as: UTF8.self)))
                }
            } catch { return (requests, error) }
        }
    }

    func refusal(_ text: String) -> Int? { parse(text).refusal?.status }

    @Test func aRequestWithALengthIsReadWithItsBodyAndQuery() throws {
        let (requests, refusal) = parse(
            "PUT /api/u/lights/1/state?session=a%20b&x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n"
                + "Content-Length: 5\r\n\r\nhello")
        #expect(refusal == nil)
        let (head, body) = try #require(requests.first)
        #expect(head.method == "PUT" && head.path == "/api/u/lights/1/state" && body == "hello")
        #expect(head.query == ["session": "a b", "x": ""])
        #expect(head.field("host") == "127.0.0.1" && head.keepsAlive)
    }

    @Test func pipelinedRequestsAreReadInTurnAndChunksAreJoined() {
        let (requests, refusal) = parse(
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: t\r\n\r\n"
                + "GET /c HTTP/1.0\r\n\r\n")
        #expect(refusal == nil)
        #expect(requests.map(\.0.path) == ["/a", "/b", "/c"])
        #expect(requests.map(\.1) == ["", "abcde", ""])
        #expect(requests.map(\.0.keepsAlive) == [true, true, false])
    }

    @Test func aRequestGivenByteByByteIsTheSame() {
        var parser = HTTPRequestParser(headBytes: 2_000, bodyBytes: { _ in 100 })
        var bodies: [String] = []
        for byte in "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc".utf8 {
            parser.append([byte])
            if case .request(_, let body) = try? parser.next() { bodies.append(String(decoding: body, as: UTF8.self)) }
        }
        #expect(bodies == ["abc"])
    }

    /// A client speaking TLS, or anything else that is not HTTP, to the plain port is told at its first bytes,
    /// not after the request deadline: clients that try HTTPS first wait on that answer before trying HTTP.
    @Test func bytesThatCannotBeginARequestLineAreRefusedAtOnce() {
        let clientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]
        for prefix in [
            clientHello, Array("GET\t/".utf8), Array("\u{0}".utf8), Array(String(repeating: "A", count: 40).utf8),
        ] {
            var parser = HTTPRequestParser(headBytes: 2_000, bodyBytes: { _ in 100 })
            parser.append(prefix)
            #expect(throws: HTTPRequestParser.Refusal.self, "\(prefix)") { try parser.next() }
        }
        for prefix in ["G", "GET", "GET ", "M-SEARCH * HTTP/1.1\r\n", "\r\nPOST /"] {
            var parser = HTTPRequestParser(headBytes: 2_000, bodyBytes: { _ in 100 })
            parser.append(Array(prefix.utf8))
            #expect((try? parser.next()).map { if case .needMore = $0 { true } else { false } } == true, "\(prefix)")
        }
    }

    @Test func lengthsThatTwoReadersCouldTakeDifferentlyAreRefused() {
        let head = "POST /api HTTP/1.1\r\nHost: x\r\n"
        #expect(refusal(head + "Content-Length: 5\r\nContent-Length: 7\r\n\r\nabcdefg") == 400)
        #expect(refusal(head + "Content-Length: 5, 7\r\n\r\nabcdefg") == 400)
        #expect(refusal(head + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 400)
        for value in ["-1", "+5", "abc", "5 5", "", "99999999999999999999999", "0x10"] {
            #expect(refusal(head + "Content-Length: \(value)\r\n\r\n") == 400, "\(value)")
        }
        #expect(refusal(head + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n") == 501)
        #expect(refusal("POST /api HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 400)
    }

    /// Any Transfer-Encoding field frames the body, even an empty one: were it passed over, Content-Length would
    /// frame a body that a reader taking the field differently frames otherwise.
    @Test func transferEncodingThatIsEmptyOrNotEndedByChunkedIsRefused400() {
        let head = "POST /api HTTP/1.1\r\nHost: x\r\n"
        for value in [
            "", " ", "chunked,", "chunked,,", ", chunked", "chunked, , chunked", "chunked, gzip", "chunked, chunked",
        ] {
            #expect(refusal(head + "Transfer-Encoding: \(value)\r\nContent-Length: 3\r\n\r\nabc") == 400, "\(value)")
            #expect(refusal(head + "Transfer-Encoding: \(value)\r\n\r\n0\r\n\r\n") == 400, "\(value)")
        }
        #expect(refusal(head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: \r\n\r\n0\r\n\r\n") == 400)
        #expect(refusal(head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 400)
        #expect(refusal(head + "Transfer-Encoding: gzip\r\n\r\n") == 400, "not ended by chunked")
        #expect(refusal(head + "Transfer-Encoding: Chunked\r\n\r\n0\r\n\r\n") == nil, "codings are case-insensitive")
    }

    /// An absolute-form target names the host the request is for (RFC 9112 §3.2.2), whatever `Host` says: the
    /// access check must see that name, not the field.
    @Test func anAbsoluteFormTargetsAuthorityIsTheRequestsHost() throws {
        let (requests, refusal) = parse(
            "GET http://evil.example:80/api/config?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /api/config HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n"
                + "GET HTTP://[::1]:8080 HTTP/1.1\r\nHost: x\r\n\r\n" + "GET /a HTTP/1.0\r\n\r\n")
        #expect(refusal == nil)
        #expect(requests.map(\.0.host) == ["evil.example:80", "127.0.0.1:80", "[::1]:8080", nil])
        #expect(requests.map(\.0.path) == ["/api/config", "/api/config", "/", "/a"])
        #expect(requests.first?.0.query == ["x": "1"])
        for target in ["http:///a", "http://user@127.0.0.1/a", "http://", "http://a b/"] {
            #expect(self.refusal("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n") == 400, "\(target)")
        }
    }

    @Test func chunkLinesEndInCRLFAndTheirSizesAreStrictlyHexadecimal() {
        let head = "POST /api HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(refusal(head + "3\nabc\r\n0\r\n\r\n") == 400, "a size line ended by LF alone")
        #expect(refusal(head + "3\r\nabc\n0\r\n\r\n") == 400, "data ended by LF alone")
        #expect(refusal(head + "3\r\nabc\r\n0\n\r\n") == 400, "the last size line ended by LF alone")
        #expect(refusal(head + "3\r\nabc\r\n0\r\n\n") == 400, "the end ended by LF alone")
        #expect(refusal(head + "3\r\nabc\r\n0\r\nA: b\n\r\n") == 400, "a trailer ended by LF alone")
        for line in [" 3", "3 x", "3x", "0x3", "3\r", "3;", "3;=1", "3;a=", "3;a b", "3;a=\"b", "3;a=b c", "3;a\u{1}"] {
            #expect(refusal(head + "\(line)\r\nabc\r\n0\r\n\r\n") == 400, "\(line)")
        }
        for line in ["3", "03", "3;a", "3;a=b", "3 ; a = b ;c", "3;a=\"b;\\\"c\"", "0000000000003"] {
            #expect(parse(head + "\(line)\r\nabc\r\n0\r\n\r\n").requests.map(\.1) == ["abc"], "\(line)")
        }
    }

    @Test func chunkSizesThatDoNotFitAreRefusedNotWrapped() {
        let head = "POST /api HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        for size in ["FFFFFFFFFFFFFFFF", "10000000000000000", "-1", "+1", "zz", ""] {
            #expect(refusal(head + "\(size)\r\nabc\r\n") == 400, "\(size)")
        }
        #expect(refusal(head + "3\r\nabcdef\r\n0\r\n\r\n") == 400, "data longer than its size")
        #expect(refusal(head + "7FFFFFFF\r\nabc") == 413, "over the body limit")
    }

    @Test func malformedHeadsAreRefused() {
        #expect(refusal("GET /a HTTP/1.1\r\n\r\n") == 400, "no Host")
        #expect(refusal("GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n") == 400, "two Hosts")
        #expect(refusal("GET /a HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  folded\r\n\r\n") == 400, "obs-fold")
        #expect(refusal("GET /a HTTP/1.1\r\nHost : x\r\n\r\n") == 400, "space before the colon")
        #expect(refusal("GET /a HTTP/2.0\r\nHost: x\r\n\r\n") == 505)
        #expect(refusal("GET a HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
        #expect(refusal("\u{16}\u{03}\u{01}\u{00}\u{a5}\u{01}\r\n\r\n") == 400, "a TLS hello")
        #expect(refusal("GET /a HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n\r\n") == 417)
        #expect(refusal("GET /\(String(repeating: "a", count: 3_000)) HTTP/1.1\r\n") == 431)
        #expect(parse("GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n").refusal?.status == 413)
    }

    /// Every way of cutting a few requests into reads gives the same requests as reading them whole.
    @Test func requestsCutIntoReadsAnywhereAreReadAsWhole() {
        let text =
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n0\r\nT: t\r\n\r\n"
            + "PUT /c?d=e HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi" + "GET /f HTTP/1.0\n\n"
        let bytes = Array(text.utf8)
        let whole = parse(text)
        #expect(whole.refusal == nil && whole.requests.count == 4)
        func describe(_ requests: [(HTTPRequestParser.Head, String)]) -> [String] {
            requests.map { "\($0.0.method) \($0.0.path) \($0.0.query) \($0.0.fields.map(\.value)) \($0.1)" }
        }
        // Five cuts each in 200 ways spread by two primes, the same in every run, so a failure repeats.
        let cuts: [[Int]] =
            [Array(1..<bytes.count)] + (1..<bytes.count).map { [$0] }
            + (0..<200).map { round in
                (0..<5).map { ($0 * 7_919 + round * 104_729) % (bytes.count - 1) + 1 }.sorted()
            }
        for cut in cuts {
            var parser = HTTPRequestParser(headBytes: 2_000, bodyBytes: { _ in 1_000 })
            var requests: [(HTTPRequestParser.Head, String)] = []
            for (from, to) in zip([0] + cut, cut + [bytes.count]) where from < to {
                parser.append(bytes[from..<to])
                while case .request(let head, let body)? = try? parser.next() {
                    requests.append((head, String(decoding: body, as: UTF8.self)))
                }
            }
            #expect(describe(requests) == describe(whole.requests), "cut at \(cut)")
        }
    }

    /// Feeds `bytes` to `parser` one at a time, as a client sending a byte a packet would; returns whether a
    /// whole request came, and how many bytes the parser looked at meanwhile.
    func feedByteByByte(_ bytes: [UInt8], to parser: inout HTTPRequestParser) -> (found: Bool, scanned: Int) {
        let before = parser.headBytesScanned
        var found = false
        for byte in bytes {
            parser.append([byte])
            if case .request? = try? parser.next() { found = true }
        }
        return (found, parser.headBytesScanned - before)
    }

    /// A client that sends its head a byte at a time makes the parser look at each byte a few times, not at
    /// the whole head again on every read.
    @Test func aHeadGivenByteByByteIsScannedOnce() throws {
        var parser = HTTPRequestParser(headBytes: 16_384, bodyBytes: { _ in 100 })
        let head = Array(("GET / HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-A: 1\r\n", count: 90) + "\r\n").utf8)
        let (found, scanned) = feedByteByByte(head, to: &parser)
        #expect(found)
        #expect(scanned < 4 * head.count, "\(scanned) for \(head.count) bytes")
    }

    /// So does one that sends a chunked body's trailer a byte at a time.
    @Test func aTrailerGivenByteByByteIsScannedOnce() throws {
        var parser = HTTPRequestParser(headBytes: 16_384, bodyBytes: { _ in 100 })
        parser.append(Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n".utf8))
        #expect({ if case .needMore? = try? parser.next() { true } else { false } }())
        let trailer = Array(("X-Trailer: " + String(repeating: "t", count: 8_000) + "\r\n\r\n").utf8)
        let (found, scanned) = feedByteByByte(trailer, to: &parser)
        #expect(found)
        #expect(scanned < 4 * trailer.count, "\(scanned) for \(trailer.count) bytes")
    }

    @Test func aClientThatWaitsForContinueIsToldWhenTheHeadIsRead() throws {
        var parser = HTTPRequestParser(headBytes: 2_000, bodyBytes: { _ in 100 })
        parser.append(Array("POST /b HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8))
        guard case .head(let head) = try parser.next() else { throw ParserTestError.noHead }
        #expect(head.expectsContinue)
        #expect({ if case .needMore = try? parser.next() { true } else { false } }())
        parser.append(Array("ok".utf8))
        guard case .request(_, let body) = try parser.next() else { throw ParserTestError.noHead }
        #expect(body == Array("ok".utf8))
    }

    enum ParserTestError: Error { case noHead }
}

import CLinux
import Foundation
import LumenLoop
import LumenProtocol
import LumenServer
import LumenService

extension Benchmarks {
    /// Notices delivered a second to 100 sessions each subscribed to the home's name: over HTTP, each reading
    /// an events stream (Server-Sent Events, as the dashboard does), against 100 socket sessions, in turn, on
    /// one lumend server in this process. A round is a burst of changes written by one more socket session;
    /// it ends when every session has read the last of them.
    static func benchmarkEventStreams(_ baseline: Baseline) async {
        let count = 100
        let changes = baseline.quick ? 200 : 1_000
        let served = await serve(
            fixture: instantHome(lights: 1), directory: "\(baseline.directory)/streams", durability: .relaxed)
        let quiet = Logger(level: .critical, handler: MemoryLogHandler())
        guard let fd = try? TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0)),
            let port = TCPListener.boundPort(fd)
        else {
            print("  events streams: SKIPPED (no loopback TCP listener could be opened)")
            await served.stop()
            return
        }
        let loop = EventLoop(name: "lumend.http")
        let front = RPCOverHTTP(
            scopeContext: served.scopeContext, loop: loop,
            settings: RPCOverHTTP.Settings(token: .unguessable()), logger: quiet)
        await served.scopeContext.home.addWatcher { front.publish($0) }
        // Every client here comes from one address: more than the 64 connections one address may hold.
        var limits = HTTPLimits()
        limits.connectionsPerAddress = limits.connections
        limits.streamsPerAddress = limits.streams
        let http = HTTPServer(listeners: [HTTPListener(fd: fd)], loop: loop, limits: limits, logger: quiet) { request in
            front.respond(to: request) ?? .now(.text("no\n", status: 404))
        }
        let httpTask = Task { try await http.run() }
        let path = served.path
        let (socketRun, streamRun) = await onThread { () -> (Measurement?, Measurement?) in
            let sockets = subscribedSockets(count, at: path)
            // What each socket has read so far, kept from one round to the next: a stream's chunks run on.
            var readers: [Int32: ChunkedText] = [:]
            for fd in sockets { readers[fd] = ChunkedText(expectingHead: false) }
            let streams = (0..<count).compactMap { _ in openEventStream(port: port, subscribe: subscribeToName) }
            for (fd, text) in streams { readers[fd] = text }
            guard sockets.count == count, streams.count == count, let writer = try? UnixSocket.connect(to: path)
            else { return (nil, nil) }
            defer { for fd in sockets + streams.map(\.fd) + [writer] { close(fd) } }
            var round = 0
            var failed = false
            let (socketRun, streamRun) = alternate("socket", "events") { which in
                round += 1
                let fds = which == "socket" ? sockets : streams.map(\.fd)
                guard let run = burst(changes, round: round, writer: writer, readers: fds, texts: &readers) else {
                    failed = true
                    return Measurement(operations: 1, seconds: 1e9, cpu: 0)
                }
                return run
            }
            return failed ? (nil, nil) : (socketRun, streamRun)
        }
        if let socketRun, let streamRun {
            report(
                "notices/s to \(count) SSE sessions (vs \(count) socket sessions)", streamRun, baseline: socketRun)
        } else {
            print("  " + pad("notices/s to \(count) SSE sessions") + "not every session heard every change")
        }
        httpTask.cancel()
        _ = await httpTask.result
        await served.stop()
    }

    /// `changes` changes of the home's name, written at once by `writer`; measured until every one of `readers`
    /// has read the last. `nil` when one has not within 30 s.
    static func burst(
        _ changes: Int, round: Int, writer: Int32, readers: [Int32], texts: inout [Int32: ChunkedText],
        heardAs key: String = "value"
    ) -> Measurement? {
        let last = "round \(round) last"
        var lines = ""
        for change in 0..<changes {
            let value = change == changes - 1 ? last : "round \(round) change \(change)"
            lines +=
                #"{"jsonrpc":"2.0","id":\#(change),"method":"set","params":{"scope":0,"connection":"name","value":"\#(value)"}}"#
                + "\n"
        }
        let cpu = processCPU()
        let began = ContinuousClock.now
        UnixSocket.sendAll(writer, Array(lines.utf8))
        guard waitForText(#""\#(key)":"\#(last)""#, on: readers, texts: &texts) else { return nil }
        let measurement = Measurement(
            operations: changes * readers.count, seconds: seconds(ContinuousClock.now - began),
            cpu: processCPU() - cpu)
        var replies = LineReader(fd: writer)
        for _ in 0..<changes { _ = try? replies.next(timeout: .seconds(30)) }
        return measurement
    }

    /// The request a benchmark's socket session sends to follow the home's name.
    static let subscribeToName =
        #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"scope":0,"connection":"name"}}"#

    /// `count` socket sessions on `path`, each subscribed to the home's name and past its reply; fewer when
    /// some could not connect or were not answered.
    static func subscribedSockets(_ count: Int, at path: String) -> [Int32] {
        (0..<count).compactMap { _ -> Int32? in
            guard let fd = try? UnixSocket.connect(to: path) else { return nil }
            UnixSocket.sendAll(fd, Array((subscribeToName + "\n").utf8))
            var reader = LineReader(fd: fd)
            return (try? reader.next(timeout: .seconds(30))) != nil ? fd : nil
        }
    }

    /// A session over HTTP subscribed with `subscribe`, and its events stream open: the stream's socket, read
    /// once its head has come, and what was read of it.
    static func openEventStream(port: UInt16, subscribe: String) -> (fd: Int32, text: ChunkedText)? {
        func post(_ body: String, session: String?) -> String? {
            let fd = HTTPLoadClient.connect(port: port)
            defer { close(fd) }
            var head = "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            if let session { head += "Lumen-Session: \(session)\r\n" }
            UnixSocket.sendAll(fd, Array((head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body).utf8))
            var response: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                response += buffer[0..<count]
            }
            return String(decoding: response, as: UTF8.self)
        }
        guard let hello = post(#"{"jsonrpc":"2.0","id":1,"method":"hello"}"#, session: nil),
            let line = hello.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("lumen-session:") })
        else { return nil }
        let session = line.dropFirst("lumen-session:".count).trimmingCharacters(in: .whitespaces)
        guard post(subscribe, session: session)?.contains("\"subscription\"") == true else { return nil }
        let fd = HTTPLoadClient.connect(port: port)
        UnixSocket.sendAll(fd, Array("GET /rpc/events?session=\(session) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        var texts = [fd: ChunkedText(expectingHead: true)]
        guard waitForText("retry:", on: [fd], texts: &texts), let text = texts[fd] else {
            close(fd)
            return nil
        }
        return (fd, text)
    }

    /// Reads every socket until each has shown `text`; `false` after 30 s. `texts` holds what each socket has
    /// read, so a `text` split between two reads is seen and a stream's chunk framing is taken out.
    static func waitForText(_ text: String, on sockets: [Int32], texts: inout [Int32: ChunkedText]) -> Bool {
        let marker = Array(text.utf8)
        let epoll = lumen_epoll_create()
        defer { close(epoll) }
        var unread = Set(sockets)
        for fd in sockets { _ = lumen_epoll_ctl(epoll, LUMEN_EPOLL_CTL_ADD, fd, LUMEN_EPOLLIN, UInt64(fd)) }
        var masks = [UInt32](repeating: 0, count: 256)
        var keys = [UInt64](repeating: 0, count: 256)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + .seconds(30)
        while !unread.isEmpty {
            guard ContinuousClock.now < deadline else { return false }
            let ready = masks.withUnsafeMutableBufferPointer { masks in
                keys.withUnsafeMutableBufferPointer { keys in
                    lumen_epoll_wait(epoll, masks.baseAddress, keys.baseAddress, 256, 1_000)
                }
            }
            for index in 0..<max(0, Int(ready)) {
                let fd = Int32(truncatingIfNeeded: keys[index])
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0, unread.contains(fd) else { continue }
                if texts[fd, default: ChunkedText(expectingHead: false)].append(buffer[0..<count], lookingFor: marker) {
                    unread.remove(fd)
                    _ = lumen_epoll_ctl(epoll, LUMEN_EPOLL_CTL_DEL, fd, 0, 0)
                }
            }
        }
        return true
    }
}

/// What a socket read, for finding a marker in it: the tail of the text so far, with HTTP's chunk framing
/// (`1f4\r\n` … `\r\n`) taken out once a response's head has been read; a socket with no head (lumend's own
/// protocol) is read as it comes.
struct ChunkedText {
    private var tail: [UInt8] = []
    /// Bytes left in the chunk being read; `nil` while a size line is read.
    private var chunkLeft: Int?
    private var sizeLine: [UInt8] = []
    private var inBody = false
    private var isChunked = false
    private var head: [UInt8] = []

    init(expectingHead: Bool) { inBody = !expectingHead }

    /// Adds `bytes`; whether `marker` has now been seen.
    mutating func append(_ bytes: ArraySlice<UInt8>, lookingFor marker: [UInt8]) -> Bool {
        var text: [UInt8] = []
        var rest = bytes[...]
        if !inBody {
            head += rest
            guard let end = head.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound else {
                return head.firstRange(of: marker) != nil
            }
            isChunked = String(decoding: head[..<end], as: UTF8.self).lowercased().contains("chunked")
            rest = head[end...]
            inBody = true
            if !isChunked { text += head }
        }
        if isChunked {
            while !rest.isEmpty {
                if let left = chunkLeft, left > 0 {
                    let taken = rest.prefix(left)
                    text += taken
                    rest = rest.dropFirst(taken.count)
                    chunkLeft = left - taken.count
                } else {
                    // A size line, or the CRLF that ends a chunk (an empty line before the next size).
                    let byte = rest.removeFirst()
                    if byte == UInt8(ascii: "\n") {
                        let digits = String(decoding: sizeLine, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                        if !digits.isEmpty { chunkLeft = Int(digits, radix: 16) ?? 0 }
                        sizeLine = []
                    } else if byte != UInt8(ascii: "\r") {
                        sizeLine.append(byte)
                    }
                }
            }
        } else {
            text += rest
        }
        tail += text
        if tail.firstRange(of: marker) != nil { return true }
        if tail.count > marker.count { tail.removeFirst(tail.count - marker.count) }
        return false
    }
}

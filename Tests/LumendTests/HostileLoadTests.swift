import Foundation
import LumenModel
import LumenProtocol
import LumenServer
import LumenSimulation
import LumenTestSupport
import Synchronization
import Testing

extension HostileSuites {
    /// Every kind of hostile or broken client at once, against a real daemon, while a well-behaved client keeps
    /// reading a value: afterwards the daemon's file descriptors and threads are back at their baseline and its
    /// memory close to it, and the good client was answered throughout. The good client's p99 before and during
    /// is printed; `make hostile` (`LUMEN_HOSTILE_STRICT=1`) also holds it to 3× the p99 before.
    @Suite("Hostile clients against a real daemon", .serialized, .timeLimit(.minutes(5)))
    struct HostileLoadTests {
        static let strict = ProcessInfo.processInfo.environment["LUMEN_HOSTILE_STRICT"] != nil

        /// The daemon's open descriptors, threads and resident memory (KiB), from `/proc`.
        struct Resources: CustomStringConvertible {
            var descriptors: Int
            var threads: Int
            var residentKiB: Int
            /// The most resident memory the process has had (KiB).
            var peakResidentKiB: Int

            init(pid: Int32) {
                descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
                threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
                let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
                func kibibytes(_ field: String) -> Int {
                    let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
                    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
                }
                residentKiB = kibibytes("VmRSS:")
                peakResidentKiB = kibibytes("VmHWM:")
            }

            var description: String {
                "\(descriptors) fds, \(threads) threads, \(residentKiB) KiB resident (peak \(peakResidentKiB))"
            }
        }

        /// `count` timed `get`s; their latencies in microseconds, sorted. The client is a plain blocking one on
        /// a thread of its own, as a simple well-behaved client is: a request, then a wait for its reply. Given a
        /// `control`, each `get` is followed by the same line sent to it and read back, timed the same way.
        func latencies(_ client: LineClient, _ count: Int, control: LineClient? = nil) async throws
            -> (lumend: [Double], control: [Double])
        {
            let request = #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"connection":"name"}}"#
            let samples: Result<([Double], [Double]), LineClient.Failure> = await offload {
                var samples: ([Double], [Double]) = ([], [])
                samples.0.reserveCapacity(count)
                samples.1.reserveCapacity(control == nil ? 0 : count)
                func timed(_ client: LineClient) throws(LineClient.Failure) -> Double {
                    let start = ContinuousClock.now
                    client.send(request)
                    _ = try client.readLineBlocking()
                    let elapsed = ContinuousClock.now - start
                    return Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6
                }
                for _ in 0..<count {
                    do throws(LineClient.Failure) {
                        samples.0.append(try timed(client))
                        if let control { samples.1.append(try timed(control)) }
                    } catch { return .failure(error) }
                }
                return .success(samples)
            }
            let (lumend, control) = try samples.get()
            return (lumend.sorted(), control.sorted())
        }

        /// A client of a raw echo server, the control beside the good client: a thread in this process that
        /// sends back what it reads, with no code of lumend's in the path. What the attack does to its p99 is what
        /// the machine alone (every core busy with the attack's threads and lumend's) does to any server's.
        static func echoControl(in directory: String) throws -> LineClient {
            let path = directory + "/echo.sock"
            let listener = try UnixSocket.listen(at: path)
            defer { UnixSocket.close(listener) }
            let client = try LineClient(path: path)
            let served = accept(listener, nil, nil)
            Thread {
                var buffer = [UInt8](repeating: 0, count: 4_096)
                while case .moved(let count) = buffer.withUnsafeMutableBytes({ UnixSocket.receive(served, into: $0) }),
                    UnixSocket.sendAll(served, Array(buffer[0..<count]))
                {}
                UnixSocket.close(served)
            }.start()
            return client
        }

        /// What each of a process's descriptors refers to (`socket:[…]`, a path, …), from `/proc`.
        static func descriptorTargets(_ pid: Int32) -> Set<String> {
            let directory = "/proc/\(pid)/fd"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return Set(
                names.map {
                    // A descriptor whose file is deleted meanwhile is still the same descriptor.
                    "\($0)=\(((try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")) ?? "?").replacingOccurrences(of: " (deleted)", with: ""))"
                })
        }

        /// The CPU time (user and system) process `pid` has used, in seconds, from `/proc`.
        static func cpuSeconds(_ pid: Int32) -> Double {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // The fields after the command name, which is in parentheses and may hold spaces.
            guard let close = stat.lastIndex(of: ")") else { return 0 }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        static func p99(_ sorted: [Double]) -> Double { sorted[Int(Double(sorted.count - 1) * 0.99)] }

        static let onlyAttacks: Set<Int>? = {
            let listed = ProcessInfo.processInfo.environment["LUMEN_HOSTILE_ONLY"]?.split(separator: ",").map {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            guard let listed, !listed.isEmpty else { return nil }
            // An item that is no number must not leave the test running no attack at all.
            precondition(!listed.contains(nil), "LUMEN_HOSTILE_ONLY takes attack numbers: N or N,M,…")
            return Set(listed.compactMap { $0 })
        }()

        /// Attacks started so far.
        static let started = Atomic<Int>(0)

        /// Runs blocking client work on a thread of its own, ignoring its failures (hostile clients fail).
        /// `LUMEN_HOSTILE_ONLY=N` runs only the Nth attack (from 0), to see what each costs the good client;
        /// `LUMEN_HOSTILE_ONLY=N,M,…` runs those.
        func hostile(_ work: @escaping @Sendable () throws -> Void) -> Task<Void, Never> {
            let index = Self.started.add(1, ordering: .relaxed).oldValue
            if let only = Self.onlyAttacks, !only.contains(index) { return Task {} }
            return Task { await offload { try? work() } }
        }

        @Test func theDaemonShrugsOffHostileClientsAndComesBackToItsBaseline() async throws {
            let daemon = try DaemonProcess(
                arguments: [
                    "--clock", "virtual", "--request-timeout", "1", "--max-sessions", "256", "--max-sessions-per-user",
                    "192", "--log-level", "debug", "--fixture", writeFixture(),
                ])
            _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
            let socket = daemon.socketPath
            let good = try daemon.connect()
            let control = try Self.echoControl(in: daemon.directory.path)
            defer { control.hangUp() }
            _ = try await latencies(good, 200, control: control)  // warm up
            let baseline = Resources(pid: daemon.pid)
            let targetsBefore = Self.descriptorTargets(daemon.pid)
            let (before, controlBefore) = try await latencies(good, 1_000, control: control)

            // Every payload is made before the attack, so that during it the test's own threads only send.
            // The random bytes take seconds in a debug build: made on a thread of their own, off the pool other
            // tests' tasks need.
            let (garbage, noise) = await offload {
                var random = SeededRandom(seed: 42)
                let garbage: [[UInt8]] = (0..<200).map { _ in
                    (0..<Int.random(in: 1...4_096, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
                    }
                }
                return (garbage, (0..<(8 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
            let hugeLine = [UInt8](repeating: UInt8(ascii: "x"), count: 2 << 20) + [0x0A]
            let batch = Array(
                ("[" + (0..<10_000).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"hello"}"# }.joined(separator: ",")
                    + "]\n").utf8)
            let nesting = Array(
                (String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n").utf8)
            let opens = Array(
                ((0..<100_000).map {
                    #"{"jsonrpc":"2.0","id":\#($0),"method":"open","params":{"scope":0,"connection":"room","configuration":"lab"}}"#
                }.joined(separator: "\n") + "\n").utf8)
            let writes = Array(
                ((0..<2_000).map {
                    #"{"jsonrpc":"2.0","id":\#($0),"method":"set","params":{"scope":0,"connection":"name","value":"n\#($0)"}}"#
                }.joined(separator: "\n") + "\n").utf8)

            // 100,000 requests in batches of 2,000, one after another.
            let batches = Array(
                ((0..<50).map { round in
                    "["
                        + (0..<2_000).map { #"{"jsonrpc":"2.0","id":\#(round * 2_000 + $0),"method":"hello"}"# }
                        .joined(separator: ",") + "]"
                }.joined(separator: "\n") + "\n").utf8)
            // The attackers that send much connect first: the sessions held and the idle connections below take
            // the user's every session, and an attacker that came after them would be refused and send nothing.
            let (deaf, writer, flooder, noisy, batcher) = (
                try daemon.connect(), try daemon.connect(), try daemon.connect(), try daemon.connect(),
                try daemon.connect()
            )
            // Attacks that hold connections hold them until the good client has measured its latency.
            let measuring = DispatchGroup()
            measuring.enter()
            let idleClosed = Atomic<Int>(0)
            var attacks: [Task<Void, Never>] = []
            // Sessions up to the per-user limit, held while the good client measures.
            attacks.append(
                hostile {
                    let held = try (0..<150).map { _ in try LineClient(path: socket) }
                    for client in held { client.send(#"{"jsonrpc":"2.0","id":1,"method":"hello"}"#) }
                    measuring.wait()
                })
            // Idle connections beyond the limit: each is closed by the server once the request timeout passes.
            attacks.append(
                hostile {
                    let idle = (0..<100).compactMap { _ in try? LineClient(path: socket) }
                    for client in idle where client.hungUp(within: .seconds(60)) {
                        idleClosed.add(1, ordering: .relaxed)
                    }
                })
            // Random bytes, and clients that vanish mid-request.
            attacks.append(
                hostile {
                    for (round, bytes) in garbage.enumerated() {
                        let client = try LineClient(path: socket)
                        client.sendRaw(bytes + (round % 2 == 0 ? [0x0A] : []))
                        client.sendRaw(Array(#"{"jsonrpc":"2.0","id":7,"method":"get","par"#.utf8))
                    }
                })
            // A byte, then nothing: a client too slow to finish a line before the request timeout, which the
            // server closes (the idle connections above count the closes).
            attacks.append(
                hostile {
                    let slow = try LineClient(path: socket)
                    slow.sendRaw(Array("{".utf8))
                    if slow.hungUp(within: .seconds(60)) { idleClosed.add(1, ordering: .relaxed) }
                })
            // A subscriber that never reads while another client writes the value it watches.
            attacks.append(
                hostile {
                    deaf.send(
                        #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"scope":0,"connection":"name"}}"#)
                    writer.sendRaw(writes)
                    measuring.wait()
                })
            // Huge lines and batches, deep nesting, a session opening 100,000 scopes, odd numbers.
            attacks.append(
                hostile {
                    flooder.sendRaw(hugeLine)
                    flooder.sendRaw(batch)
                    flooder.sendRaw(nesting)
                    flooder.sendRaw(opens)
                    for number in ["1e309", "-0", "1e-400", "-1e309", "1e400", "0.0000000000000000000001"] {
                        flooder.send(
                            #"{"jsonrpc":"2.0","id":"n","method":"set","params":{"scope":0,"connection":"name","value":\#(number)}}"#
                        )
                    }
                    measuring.wait()
                })
            // A stream of random bytes that goes on while the good client measures.
            attacks.append(
                hostile {
                    for start in stride(from: 0, to: noise.count, by: 64 << 10) {
                        noisy.sendRaw(Array(noise[start..<min(noise.count, start + (64 << 10))]))
                    }
                    measuring.wait()
                })
            // 100,000 requests in batches of 2,000, one after another.
            attacks.append(
                hostile {
                    batcher.sendRaw(batches)
                    measuring.wait()
                })
            let (daemonCPU, ownCPU, wall) = (
                Self.cpuSeconds(daemon.pid), Self.cpuSeconds(getpid()), ContinuousClock.now
            )
            let (during, controlDuring) = try await latencies(good, 1_000, control: control)
            let window = ContinuousClock.now - wall
            let seconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
            let busy = (
                daemon: (Self.cpuSeconds(daemon.pid) - daemonCPU) / seconds,
                tests: (Self.cpuSeconds(getpid()) - ownCPU) / seconds
            )
            measuring.leave()
            for attack in attacks { await attack.value }
            for client in [deaf, writer, flooder, noisy, batcher] { client.hangUp() }

            // Settled: only the good client left. A probe connection, answered and closed, proves every
            // attacker's connection was accepted (they are accepted in order). lumend logs a session's end once
            // its socket is closed, when its work is done (under a sanitizer the 100,000 opens alone take a
            // minute): the wait is for the log to show every session but the good client's ended.
            _ = try await LineClient(path: socket).result("hello")
            let alone = await waitForCondition(in: daemon.directory.path, timeout: .seconds(180)) {
                let open = Self.openSessions(logged: daemon.stderr)
                return open.count == 1 && open == [open.min()!]
            }
            #expect(alone, "sessions still open: \(Self.openSessions(logged: daemon.stderr).sorted().prefix(20))")
            let settled = await waitForThreadCount(of: daemon.pid, atMost: baseline.threads)
            // A sanitizer's shadow memory grows with everything the attack touched: only a plain build is held to this.
            let sanitized = runningSanitizer != nil
            let memoryLimit = baseline.residentKiB + 64 * 1_024
            // Freed memory is given back on a timer, which logs (at debug level) when it does.
            let memorySettled = await waitForCondition(in: daemon.directory.path, timeout: .seconds(10)) {
                sanitized || Resources(pid: daemon.pid).residentKiB < memoryLimit
            }
            let after = Resources(pid: daemon.pid)
            #expect(settled, "threads never came back to the baseline; before: \(baseline); after: \(after)")
            if Self.onlyAttacks == nil {
                #expect(idleClosed.load(ordering: .relaxed) == 101, "idle connections the server closed")
            }
            let (p99Before, p99During) = (Self.p99(before), Self.p99(during))
            let (controlP99Before, controlP99During) = (Self.p99(controlBefore), Self.p99(controlDuring))
            print(
                "hostile clients: good client's get p99 \(Int(p99Before)) µs before, \(Int(p99During)) µs during "
                    + "(\(String(format: "%.1f", p99During / p99Before))×); a raw echo server's in the same moments "
                    + "\(Int(controlP99Before)) µs before, \(Int(controlP99During)) µs during "
                    + "(\(String(format: "%.1f", controlP99During / controlP99Before))×); cores busy meanwhile: lumend "
                    + "\(String(format: "%.2f", busy.daemon)), the test process \(String(format: "%.2f", busy.tests)) "
                    + "of \(ProcessInfo.processInfo.activeProcessorCount); before: \(baseline); after: \(after)")
            // Under a sanitizer, the pipes to the symbolizer its runtime starts are not lumend's. The state files count
            // by how many are open, not by name or number: the attack's writes can pass the size at which a snapshot
            // starts a new journal, opened anew under another number, and a journal open may be renamed (to
            // state.previous.journal) between the two looks.
            let targetsAfter = Self.descriptorTargets(daemon.pid)
            func isStateFile(_ target: String) -> Bool { target.contains("/state/") }
            let newDescriptors = targetsAfter.subtracting(targetsBefore).filter {
                !isStateFile($0) && (!sanitized || !$0.contains("=pipe:"))
            }
            #expect(newDescriptors.isEmpty, "before: \(baseline); after: \(after); new: \(newDescriptors)")
            #expect(
                targetsAfter.count(where: isStateFile) <= targetsBefore.count(where: isStateFile),
                "state files open before: \(targetsBefore.filter(isStateFile)); after: \(targetsAfter.filter(isStateFile))"
            )
            #expect(after.threads <= baseline.threads, "before: \(baseline); after: \(after)")
            #expect(memorySettled, "before: \(baseline); after: \(after)")
            // At its height too: each attacker's lines, replies and batches are bounded, so all of them at once
            // cost some 20 MiB.
            let peakLimit = baseline.residentKiB + 64 * 1_024
            #expect(sanitized || after.peakResidentKiB < peakLimit, "before: \(baseline); after: \(after)")
            if Self.strict { #expect(p99During <= 3 * p99Before, "p99 \(p99Before) µs before, \(p99During) µs during") }
            _ = try await good.result("hello")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
        }

        /// A client that sends and never reads is disconnected once its unsent replies pass the limit, and the
        /// heap its replies took is given back to the system: resident memory returns to near where it was,
        /// whatever else ran before (here, a crowd of sessions that came and went first).
        @Test func theMemoryOfAClientThatNeverReadsIsGivenBack() async throws {
            if let sanitizer = runningSanitizer {
                print("SKIPPED: a never-reading client's memory: \(sanitizer) has its own allocator and shadow memory")
                return
            }
            let daemon = try DaemonProcess(
                arguments: ["--clock", "virtual", "--log-level", "debug", "--fixture", writeFixture()])
            _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
            let good = try daemon.connect()
            _ = try await latencies(good, 200)
            do {
                let crowd = try (0..<100).map { _ in try daemon.connect() }
                for client in crowd { _ = try await client.result("hello") }
            }
            let crowdGone = await waitForCondition(in: daemon.directory.path) {
                Self.openSessions(logged: daemon.stderr).count == 1
            }
            #expect(crowdGone)
            _ = try await latencies(good, 200)
            let baseline = Resources(pid: daemon.pid)
            let gets = Array(
                ((0..<100_000).map {
                    #"{"jsonrpc":"2.0","id":\#($0),"method":"get","params":{"scope":0,"connection":"no such value"}}"#
                }.joined(separator: "\n") + "\n").utf8)
            let socket = daemon.socketPath
            let flood = Task {
                await offload {
                    guard let deaf = try? LineClient(path: socket) else { return }
                    deaf.sendRaw(gets)
                }
            }
            // Meanwhile another session opens scopes and keeps them: what lumend allocates for them lies among
            // (and after) what the flood's replies took, as a long-running daemon's heap does.
            let keeper = try daemon.connect()
            for _ in 0..<1_000 {
                _ = try? await keeper.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
            }
            await flood.value
            let disconnected = await waitForCondition(in: daemon.directory.path) {
                daemon.stderr.contains("is not reading its replies")
            }
            #expect(disconnected, "\(daemon.stderr.suffix(2_000))")
            let limit = baseline.residentKiB + 6 * 1_024
            let givenBack = await waitForCondition(in: daemon.directory.path, timeout: .seconds(10)) {
                Resources(pid: daemon.pid).residentKiB <= limit
            }
            print("a client that never reads: before: \(baseline); after: \(Resources(pid: daemon.pid))")
            #expect(givenBack, "before: \(baseline); after: \(Resources(pid: daemon.pid))")
            _ = try await good.result("hello")
            withExtendedLifetime(keeper) {}
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
        }

        /// Lines a client sends faster than they are handled cost lumend the lines waiting, not every line it
        /// handled since the queue was last empty: 39 MiB of requests that need no reply, sent in one go, leave
        /// lumend's peak resident memory within 12 MiB of its peak before.
        @Test func linesSentFasterThanTheyAreHandledCostOnlyTheLinesWaiting() async throws {
            if let sanitizer = runningSanitizer {
                print("SKIPPED: a fast sender's memory: \(sanitizer) has its own allocator and shadow memory")
                return
            }
            let daemon = try DaemonProcess(arguments: ["--clock", "virtual", "--fixture", writeFixture()])
            _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
            let client = try daemon.connect()
            _ = try await latencies(client, 200)
            let baseline = Resources(pid: daemon.pid)
            // Notifications (no id) of some 250 bytes each: no reply, so the client need not read.
            let line = #"{"jsonrpc":"2.0","method":"hello","params":{"pad":"\#(String(repeating: "x", count: 200))"}}"#
            let chunk = Array(String(repeating: line + "\n", count: 4_000).utf8)
            await offload { for _ in 0..<40 { client.sendRaw(chunk) } }
            _ = try await client.result("hello")
            let after = Resources(pid: daemon.pid)
            print("a fast sender: before: \(baseline); after: \(after)")
            #expect(
                after.peakResidentKiB - baseline.peakResidentKiB < 12 * 1_024, "before: \(baseline); after: \(after)")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
        }

        /// The sessions lumend's log shows connected and not yet disconnected.
        static func openSessions(logged log: String) -> Set<Int> {
            var open = Set<Int>()
            for line in log.split(separator: "\n") {
                let connected = line.contains("client connected session=")
                guard connected || line.contains("client disconnected session="),
                    let range = line.range(of: "session="),
                    let id = Int(line[range.upperBound...].prefix { $0.isNumber })
                else { continue }
                if connected { open.insert(id) } else { open.remove(id) }
            }
            return open
        }

        func writeFixture() -> String {
            let directory = TemporaryDirectory()
            let path = directory.file("home.json")
            _ = FileManager.default.createFile(atPath: path, contents: Data(TestFixtures.instantHome.utf8))
            Self.keep.withLock { $0.append(directory) }
            return path
        }

        static let keep = Locked<[TemporaryDirectory]>([])
    }
}

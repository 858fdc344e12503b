import LumenServer
import Testing

@testable import LumenDaemon

@Suite("lumend options")
struct DaemonOptionsTests {
    @Test func theRequestTimeoutAndSessionsPerUserAreOptions() throws {
        let options = try DaemonOptions.parse(
            ["--request-timeout", "2.5", "--max-sessions-per-user=3"], environment: [:])
        #expect(options.limits.requestGrace == .milliseconds(2_500))
        #expect(options.httpLimits.requestSeconds == 3, "HTTP's deadline, in whole seconds, rounded up")
        #expect(options.limits.maxSessionsPerUser == 3)
        let defaults = try DaemonOptions.parse([], environment: [:])
        #expect(defaults.limits.requestGrace == .seconds(10))
        #expect(defaults.limits.maxSessionsPerUser < defaults.limits.maxSessions)
    }

    @Test func sessionsAreBoundedByAnOptionInTheThousandsAndOneUserByThreeInFour() throws {
        let defaults = try DaemonOptions.parse([], environment: [:])
        #expect(defaults.limits.maxSessions == 4_096)
        #expect(defaults.limits.maxSessionsPerUser == 3_072)
        let small = try DaemonOptions.parse(["--max-sessions", "100", "--event-loops", "3"], environment: [:])
        #expect(small.limits.maxSessions == 100 && small.limits.maxSessionsPerUser == 75)
        #expect(small.limits.eventLoops == 3)
        do {
            _ = try DaemonOptions.parse(["--max-sessions", "10", "--max-sessions-per-user", "10"], environment: [:])
            Issue.record("one user was allowed every session")
        } catch {
            #expect(error.description.contains("must be below --max-sessions (10)"))
        }
    }

    @Test(arguments: [
        (["--request-timeout", "0"], "--request-timeout must be a number of seconds above 0 (at most 86400), not '0'"),
        (["--request-timeout", "soon"], "--request-timeout must be a number of seconds above 0"),
        (["--max-sessions-per-user", "0"], "--max-sessions-per-user must be a whole number from 1 to 1000000"),
        (["--max-sessions", "1"], "--max-sessions must be a whole number from 2 to 1000000, not '1'"),
        (["--event-loops", "0"], "--event-loops must be a whole number from 1 to 256, not '0'"),
        (["--event-loops", "many"], "--event-loops must be a whole number from 1 to 256, not 'many'"),
    ])
    func badLimitsAreRefusedSayingWhatIsWanted(_ arguments: [String], wanted: String) {
        let error = #expect(throws: DaemonOptions.UsageError.self) {
            try DaemonOptions.parse(arguments, environment: [:])
        }
        #expect(error?.description.contains(wanted) == true, "\(error?.description ?? "no error")")
    }

    @Test(arguments: [
        (["--lifx", "127.0.0.10:56700", "--lifx", "127.0.0.20:56700"], "--lifx is given once"),
        (["--lifx", "0.0.0.0:56700"], "--lifx takes the first bulb's address, like 127.0.0.10:56700"),
        (["--lifx", "[::1]:56700"], "--lifx takes the first bulb's IPV4-ADDRESS:PORT"),
    ])
    func aSecondOrWildcardLIFXAddressIsRefusedNotTakenSilently(_ arguments: [String], wanted: String) {
        let error = #expect(throws: DaemonOptions.UsageError.self) {
            try DaemonOptions.parse(arguments, environment: [:])
        }
        #expect(error?.description.contains(wanted) == true, "\(error?.description ?? "no error")")
    }

    @Test(arguments: [
        (["--https", "localhost:443"], "--https takes ADDRESS:PORT with a numeric address, like 127.0.0.1:8443"),
        (["--https", "0.0.0.0:443", "--tls-certificate", "cert.pem"], "--tls-certificate needs --tls-key"),
        (["--tls-key", "key.pem"], "--tls-key needs --tls-certificate"),
        (["--mdns", "eth0"], "--mdns takes an IPv4 address of this machine's LAN interface, like 192.168.1.20"),
    ])
    func anHTTPSAddressThatIsNotOneOrHalfACertificatePairIsRefused(_ arguments: [String], wanted: String) {
        let error = #expect(throws: DaemonOptions.UsageError.self) {
            try DaemonOptions.parse(arguments, environment: [:])
        }
        #expect(error?.description.contains(wanted) == true, "\(error?.description ?? "no error")")
    }

    @Test func httpsAndACertificateOfOnesOwnAreOptions() throws {
        let options = try DaemonOptions.parse(
            ["--https", "[::1]:8443", "--tls-certificate", "cert.pem", "--tls-key", "key.pem"], environment: [:])
        #expect(options.httpsAddress == TCPAddress(host: "::1", port: 8443))
        #expect(options.tlsCertificateFile == "cert.pem" && options.tlsKeyFile == "key.pem")
    }
}

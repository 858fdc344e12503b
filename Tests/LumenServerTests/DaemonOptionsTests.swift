import Testing

@testable import LumenServer

@Suite("lumend options")
struct DaemonOptionsTests {
    @Test func theRequestTimeoutAndSessionsPerUserAreOptions() throws {
        let options = try DaemonOptions.parse(
            ["--request-timeout", "2.5", "--max-sessions-per-user=3"], environment: [:])
        #expect(options.limits.requestGrace == .milliseconds(2_500))
        #expect(options.limits.maxSessionsPerUser == 3)
        let defaults = try DaemonOptions.parse([], environment: [:])
        #expect(defaults.limits.requestGrace == .seconds(10))
        #expect(defaults.limits.maxSessionsPerUser < defaults.limits.maxSessions)
    }

    @Test(arguments: [["--request-timeout", "0"], ["--request-timeout", "soon"], ["--max-sessions-per-user", "0"]])
    func badLimitsAreRefusedSayingWhatIsWanted(_ arguments: [String]) {
        #expect(throws: DaemonOptions.UsageError.self) { try DaemonOptions.parse(arguments, environment: [:]) }
    }
}

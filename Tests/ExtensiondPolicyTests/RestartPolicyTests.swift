import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

@Suite struct RestartPolicyTests {
    @Test func failedStartsBackOffThenGoFatal() {
        var policy = RestartPolicy()
        var generator = SeededRandom(seed: 3)
        for failure in 1...5 {
            let decision = policy.processExited(afterRunning: .milliseconds(200), using: &generator)
            guard case .restart(let delay) = decision else {
                Issue.record("failed start \(failure) gave \(decision)")
                return
            }
            #expect(delay <= policy.backoff.ceiling(forAttempt: failure + 1))
            #expect(policy.failedStarts == failure)
        }
        #expect(policy.processExited(afterRunning: .milliseconds(200), using: &generator) == .fatal)
        #expect(policy.processExited(afterRunning: .milliseconds(200), using: &generator) == .fatal)
    }

    @Test func aLongRunStartsANewSeries() {
        var policy = RestartPolicy()
        var generator = SeededRandom(seed: 4)
        for _ in 1...5 {
            _ = policy.processExited(afterRunning: .zero, using: &generator)
        }
        let decision = policy.processExited(afterRunning: .seconds(1), using: &generator)
        guard case .restart(let delay) = decision else {
            Issue.record("a long run gave \(decision)")
            return
        }
        #expect(delay <= policy.backoff.base)
        #expect(policy.failedStarts == 0)
    }

    @Test func resetAfterFatalAllowsRetriesAgain() {
        var policy = RestartPolicy(maxRetries: 1)
        var generator = SeededRandom(seed: 5)
        _ = policy.processExited(afterRunning: .zero, using: &generator)
        #expect(policy.processExited(afterRunning: .zero, using: &generator) == .fatal)
        policy.reset()
        #expect(policy.processExited(afterRunning: .zero, using: &generator) != .fatal)
    }

    @Test func zeroRetriesIsFatalAtTheFirstFailedStart() {
        var policy = RestartPolicy(maxRetries: 0)
        var generator = SeededRandom(seed: 6)
        #expect(policy.processExited(afterRunning: .zero, using: &generator) == .fatal)
    }
}

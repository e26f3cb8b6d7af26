import Cgroup
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// PSI triggers on /proc/pressure/memory and their rule text.
@Suite struct PressureTriggerTests {
    @Test func ruleTextIsInMicroseconds() {
        #expect(PressureTriggerRule(.some, stall: .milliseconds(150), window: .seconds(2)).kernelText == "some 150000 2000000")
        #expect(PressureTriggerRule(.full, stall: .microseconds(1), window: .milliseconds(500)).kernelText == "full 1 500000")
    }

    @Test func systemTriggerWithA2SecondWindowIsAccepted() throws {
        let trigger = try CgroupEventSource.systemMemoryPressure(PressureTriggerRule(.some, stall: .milliseconds(150), window: .seconds(2)))
        #expect(trigger.readiness == .priority)
        #expect(trigger.description == "PSI some 150000 2000000 on /proc/pressure/memory")
    }

    /// Without CAP_SYS_RESOURCE (as here) the kernel takes only windows that
    /// are multiples of 2 s; with it, 1 s is fine, so the test accepts both.
    @Test func refusedTriggerNamesTheRule() throws {
        let rule = PressureTriggerRule(.some, stall: .milliseconds(100), window: .seconds(1))
        let outcome = Result { () throws(CgroupError) in try CgroupEventSource.systemMemoryPressure(rule) }
        if case .failure(let error) = outcome {
            #expect(error == .triggerRefused(rule: "some 100000 1000000", path: "/proc/pressure/memory", errno: EINVAL))
            #expect(error.description.hasPrefix("PSI trigger \"some 100000 1000000\" refused by /proc/pressure/memory: Invalid argument"))
        }
        let invalid = PressureTriggerRule(.some, stall: .seconds(3), window: .seconds(2))
        #expect(throws: CgroupError.triggerRefused(rule: "some 3000000 2000000", path: "/proc/pressure/memory", errno: EINVAL)) {
            try CgroupEventSource.systemMemoryPressure(invalid)
        }
    }
}

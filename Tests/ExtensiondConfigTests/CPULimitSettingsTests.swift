import ExtensiondConfig
import Testing

/// `cpu_max` and `cpu_weight` (issue 19, item 9): the extensions' defaults, `[defaults]`,
/// per entry, and every value out of its documented range refused with the key's name.
@Suite struct CPULimitSettingsTests {
    @Test func extensionsGetHalfACoreAndHalfTheWeightUnlessTold() throws {
        let configuration = try ConfigDirectory().load(minimalConfig)
        let widget = try #require(configuration.extensions.first)
        #expect(widget.limits.cpuMax == CPUQuota(percent: 50) && widget.limits.cpuMax?.microsecondsPerPeriod == 50_000)
        #expect(widget.limits.cpuWeight == 50)
        #expect(configuration.apps.first?.limits.cpuMax == nil && configuration.apps.first?.limits.cpuWeight == nil)
    }

    @Test func defaultsAndEntriesSetThem() throws {
        let configuration = try ConfigDirectory().load(
            """
            [defaults]
            cpu_max = "12.5%"
            cpu_weight = 10

            [hosts.panel]
            command = ["/bin/panel"]
            cpu_max = "250%"
            cpu_weight = 10000

            """ + minimalConfig + """
                cpu_max = "max"
                """)
        #expect(configuration.extensions.first?.limits.cpuMax == .unlimited)
        #expect(configuration.extensions.first?.limits.cpuWeight == 10)
        #expect(configuration.hosts.first?.limits.cpuMax?.microsecondsPerPeriod == 250_000)
        #expect(configuration.hosts.first?.limits.cpuWeight == 10_000)
        let defaulted = try ConfigDirectory().load("[defaults]\ncpu_max = \"12.5%\"\n" + minimalConfig)
        #expect(defaulted.extensions.first?.limits.cpuMax?.microsecondsPerPeriod == 12_500)
        #expect(CPUQuota(percent: 12.5).description == "12.5%" && CPUQuota.unlimited.description == "max")
    }

    @Test(arguments: ["\"0%\"", "\"0.99%\"", "\"102400.5%\"", "\"1e3%\"", "\"-5%\"", "\"50\"", "\"%\"", "\"5.%\"", "50", "\"MAX\""])
    func aCPUMaxOutOfRangeOrMisspeltIsRefused(value: String) throws {
        let errors = try ConfigDirectory().errors("[defaults]\ncpu_max = \(value)\n" + minimalConfig)
        #expect(errors.count == 1 && errors.first?.message.contains("one core from 1% to 102400%") == true, "\(errors)")
        #expect(errors.first.map { "\($0)" }?.contains("cpu_max") == true, "\(errors)")
    }

    @Test(arguments: ["0", "-1", "10001", "9223372036854775807", "\"50\"", "0.5"])
    func aCPUWeightOutOfRangeIsRefused(value: String) throws {
        let errors = try ConfigDirectory().errors(minimalConfig + "cpu_weight = \(value)\n")
        #expect(errors.count == 1 && errors.first.map { "\($0)" }?.contains("cpu_weight") == true, "\(errors)")
    }
}

import ExtensiondConfig
import Testing

@testable import Supervisor

/// `pressure.psi` against this machine's kernel, without CAP_SYS_RESOURCE.
@Suite struct KernelSettingsTests {
    static func configuration(psi: String) throws -> Configuration {
        var configuration = Configuration()
        configuration.pressure.psi = try PSITrigger(parsing: psi)
        return configuration
    }

    @Test func aWindowThatIsNotAMultipleOfTwoSecondsIsRefusedNamingTheRule() throws {
        let configuration = try Self.configuration(psi: "some 100ms 1s")
        #expect {
            try Daemon.checkKernelSettings(configuration)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(#"pressure.psi = "some 100ms 1s": "#) && text.contains("multiple of 2 s")
        }
    }

    @Test func aTwoSecondWindowIsTaken() throws {
        try Daemon.checkKernelSettings(try Self.configuration(psi: "some 150ms 2s"))
        try Daemon.checkKernelSettings(Configuration())
    }
}

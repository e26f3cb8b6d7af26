import ExtensiondConfig
import Testing

/// `disk_max` and `state_reserve` (issue 19, item 8): the documented defaults, and sizes
/// out of range refused with the key's name.
@Suite struct DiskSettingsTests {
    @Test func defaultsAreDocumentedOnes() throws {
        let configuration = try ConfigDirectory().load(minimalConfig)
        #expect(configuration.extensions.first?.diskMax == ByteSize(32 << 20))
        #expect(configuration.apps.first?.diskMax == ByteSize(64 << 20))
        #expect(configuration.supervisor.stateReserve == ByteSize(64 << 20))
        let set = try ConfigDirectory().load("[supervisor]\nstate_reserve = \"1G\"\n[defaults]\ndisk_max = \"4M\"\n" + minimalConfig)
        #expect(set.extensions.first?.diskMax == ByteSize(4 << 20) && set.supervisor.stateReserve == ByteSize(1 << 30))
    }

    @Test(arguments: ["\"3M\"", "\"2T\"", "0", "-1", "\"lots\""])
    func aDiskMaxOutOfRangeIsRefused(value: String) throws {
        let errors = try ConfigDirectory().errors(minimalConfig + "disk_max = \(value)\n")
        #expect(errors.count == 1 && errors.first.map { "\($0)" }?.contains("disk_max") == true, "\(errors)")
    }
}

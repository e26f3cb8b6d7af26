import ExtensiondConfig
import Testing

/// The keys of identities, the sandbox and the socket roles (docs/SECURITY.md).
@Suite struct TrustSettingsTests {
    @Test func defaultsAreSecure() throws {
        let configuration = try ConfigDirectory().load(minimalConfig)
        #expect(configuration.supervisor.userRange == 61_000...61_999)
        #expect(configuration.supervisor.sandboxRequired)
        #expect(configuration.supervisor.controlGroup == nil && configuration.supervisor.adminGroup == nil)
        #expect(configuration.supervisor.externalHosts)
        let widget = try #require(configuration.extensions.first)
        #expect(widget.sandbox.enabled && widget.sandbox.network && widget.sandbox.read.isEmpty)
        #expect(configuration.apps.first?.sandbox.enabled == false)
    }

    @Test func everyKeyIsRead() throws {
        let configuration = try ConfigDirectory().load(
            """
            [supervisor]
            user_range = "70000-70009"
            sandbox_required = false
            control_group = "adm"
            admin_group = "wheel"
            external_hosts = false

            [hosts.panel]
            command = ["/bin/panel"]
            extensions = ["widget"]

            [defaults.sandbox]
            read = ["/srv/shared"]

            """ + minimalConfig + """
                [extensions.widget.sandbox]
                network = false
                write = ["/srv/out"]

                [apps.app.sandbox]
                enabled = true
                """)
        #expect(configuration.supervisor.userRange == 70_000...70_009)
        #expect(!configuration.supervisor.sandboxRequired && !configuration.supervisor.externalHosts)
        #expect(configuration.supervisor.controlGroup == "adm" && configuration.supervisor.adminGroup == "wheel")
        #expect(configuration.hosts.first?.extensions == ["widget"])
        let sandbox = try #require(configuration.extensions.first?.sandbox)
        #expect(sandbox.enabled && !sandbox.network && sandbox.read == ["/srv/shared"] && sandbox.write == ["/srv/out"])
        #expect(configuration.apps.first?.sandbox.enabled == true)
    }

    @Test(arguments: ["0-10", "10-5", "61000", "a-b", "61000-4294967295"])
    func aBadUserRangeIsRefused(text: String) throws {
        let errors = try ConfigDirectory().errors("[supervisor]\nuser_range = \"\(text)\"\n" + minimalConfig)
        #expect(errors.count == 1 && errors.first?.message.contains("is not an id range") == true, "\(errors)")
    }

    /// As `command` and `working_directory`: the demo config grants the repository's SDK.
    @Test func relativeSandboxPathsAreResolvedAgainstTheDeclaringFile() throws {
        let directory = try ConfigDirectory()
        let configuration = try directory.load(minimalConfig + #"sandbox = { read = ["../sdk/./python"], write = ["out"] }"#)
        let slash = try #require(directory.path.lastIndex(of: "/"))
        let parent = String(directory.path[..<slash])
        let sandbox = try #require(configuration.extensions.first?.sandbox)
        #expect(sandbox.read == [parent + "/sdk/python"] && sandbox.write == [directory.path + "/out"])
    }

    @Test func sandboxKeysAreKnownAndHostsNameDeclaredExtensions() throws {
        let errors = try ConfigDirectory().errors(
            minimalConfig + """
                sandbox = { read = [""], exec = true }

                [hosts.panel]
                command = ["/bin/panel"]
                extensions = ["widget", "nope"]
                """)
        let messages = errors.map(\.message)
        #expect(messages.contains { $0.contains("expected a non-empty string") })
        #expect(messages.contains { $0.contains(#"unknown key "exec""#) })
        #expect(messages.contains { $0.contains(#"no extension "nope" is declared"#) })
        #expect(errors.count == 3, "\(messages)")
    }
}

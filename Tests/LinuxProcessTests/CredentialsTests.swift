import Glibc
import Testing

@testable import LinuxProcess

/// Resolving the credentials a child switches to.
@Suite struct CredentialsTests {
    @Test func numericUserAndGroupNeedNoUserDatabase() throws {
        let credentials = try Credentials.resolve(user: "61007", group: "61008")
        #expect(credentials == Credentials(uid: 61007, gid: 61008, groups: [61008]))
    }

    @Test func namesAreLookedUp() throws {
        let nobody = try #require(try Credentials.resolve(user: "nobody", group: nil))
        #expect(nobody.uid == 65534 && nobody.gid == 65534 && nobody.groups.first == 65534)
        #expect(try Credentials.resolve(user: nil, group: nil) == nil)
        #expect(throws: SpawnError.self) { try Credentials.resolve(user: "no-such-user-here", group: nil) }
        // A numeric user without a passwd entry and without a group never falls back to root's group.
        #expect(throws: SpawnError.self) { try Credentials.resolve(user: "61009", group: nil) }
    }
}

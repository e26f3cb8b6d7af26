import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// The kernel's Landlock file-system sandbox: which ABI it offers, and rulesets built
/// once in the parent and applied by the spawner between clone and exec.
public enum Landlock {
    /// The Landlock ABI version of the running kernel; 0 when it has none or it is
    /// disabled (not in the `lsm=` list).
    public static let kernelABI: Int = max(0, Int(ext_landlock_abi()))

    /// What a rule allows beneath a directory, or on one file.
    public struct Access: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Read files, list directories.
        public static let read = Access(rawValue: UInt32(EXT_LANDLOCK_READ.rawValue))
        /// Execute files and map them executable (programs, shared libraries).
        public static let execute = Access(rawValue: UInt32(EXT_LANDLOCK_EXECUTE.rawValue))
        /// Write, create, remove and rename.
        public static let write = Access(rawValue: UInt32(EXT_LANDLOCK_WRITE.rawValue))
        /// Read, write and ioctl a device file such as `/dev/null`.
        public static let device = Access(rawValue: UInt32(EXT_LANDLOCK_DEVICE.rawValue))
    }

    /// One allowed path.
    public struct Rule: Sendable, Hashable {
        public var path: String
        public var access: Access
        /// A rule whose path may be missing (a system directory this distribution lacks) is skipped.
        public var optional: Bool

        public init(_ path: String, _ access: Access, optional: Bool = false) {
            self.path = path
            self.access = access
            self.optional = optional
        }
    }

    /// A built ruleset: a descriptor the spawner applies with `landlock_restrict_self`.
    /// One ruleset serves any number of launches; the descriptor closes with the value.
    public final class Ruleset: Sendable {
        /// The ruleset's descriptor (close-on-exec).
        public let fileDescriptor: Int32
        /// The ABI it was built for.
        public let abi: Int

        /// Builds a ruleset for `abi` (at most the kernel's) allowing exactly `rules`.
        public init(abi: Int, rules: [Rule]) throws(SpawnError) {
            guard abi > 0 else {
                throw SpawnError(.landlockRuleset, "(ABI \(abi))", reason: "Landlock is not available in this kernel")
            }
            let fd = ext_landlock_ruleset(Int32(abi))
            guard fd >= 0 else { throw SpawnError(.landlockRuleset, "(ABI \(abi))", errno: errno) }
            for rule in rules where ext_landlock_allow(fd, Int32(abi), rule.path, rule.access.rawValue) != 0 {
                let error = errno
                if rule.optional && error == ENOENT { continue }
                close(fd)
                throw SpawnError(.landlockRule, rule.path, errno: error)
            }
            self.fileDescriptor = fd
            self.abi = abi
        }

        deinit { close(fileDescriptor) }
    }
}

/// What a child gives up just before exec; see ``SpawnRequest/sandbox``.
public struct SpawnSandbox: Sendable, Equatable {
    /// A Landlock ruleset to enter; `nil`: the file system is not restricted.
    public var fileSystem: Landlock.Ruleset?
    /// Install the seccomp deny-list (dangerous calls answer EPERM).
    public var denySystemCalls: Bool
    /// A network namespace of its own with only loopback.
    public var isolateNetwork: Bool

    /// A sandbox; `no_new_privs` is always set.
    public init(fileSystem: Landlock.Ruleset?, denySystemCalls: Bool = true, isolateNetwork: Bool = false) {
        self.fileSystem = fileSystem
        self.denySystemCalls = denySystemCalls
        self.isolateNetwork = isolateNetwork
    }

    public static func == (lhs: SpawnSandbox, rhs: SpawnSandbox) -> Bool {
        lhs.fileSystem === rhs.fileSystem && lhs.denySystemCalls == rhs.denySystemCalls && lhs.isolateNetwork == rhs.isolateNetwork
    }
}

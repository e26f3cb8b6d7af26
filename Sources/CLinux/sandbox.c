/*
 * The parts of the extension sandbox that are built in the parent, before the
 * clone: a Landlock ruleset (one descriptor per profile, reusable for every
 * launch) and the seccomp deny-list (one BPF program for the process). The
 * child only applies them (see spawn.c), so it allocates nothing.
 */
#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Rights newer than the installed kernel headers may know. */
#define RIGHT_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define RIGHT_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

/* struct landlock_ruleset_attr as of ABI 6; older kernels take a prefix of it. */
struct ruleset_attributes {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

/* struct landlock_path_beneath_attr is packed. */
struct __attribute__((packed)) path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
};

int ext_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 0)
        return (errno == ENOSYS || errno == EOPNOTSUPP) ? 0 : -1;
    return (int)abi;
}

/* Every file-system right the kernel of `abi` can restrict. */
static uint64_t handled_rights(int abi)
{
    uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0-12 */
    if (abi >= 2)
        rights |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        rights |= RIGHT_TRUNCATE;
    if (abi >= 5)
        rights |= RIGHT_IOCTL_DEV;
    return rights;
}

int ext_landlock_ruleset(int abi)
{
    struct ruleset_attributes attributes = { .handled_access_fs = handled_rights(abi) };
    size_t size = offsetof(struct ruleset_attributes, handled_access_net);
    if (abi >= 6) {
        /* No abstract UNIX sockets outside the sandbox, no signals to processes outside it. */
        attributes.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
        size = sizeof attributes;
    }
    return (int)syscall(SYS_landlock_create_ruleset, &attributes, size, 0);
}

/* The Landlock rights of an `access` (EXT_LANDLOCK_*) on a directory or on a single file. */
static uint64_t rights_for(unsigned access, int abi, int is_directory)
{
    uint64_t rights = 0;
    if (access & EXT_LANDLOCK_READ)
        rights |= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    if (access & EXT_LANDLOCK_EXECUTE)
        rights |= LANDLOCK_ACCESS_FS_EXECUTE;
    if (access & EXT_LANDLOCK_WRITE)
        rights |= LANDLOCK_ACCESS_FS_WRITE_FILE | RIGHT_TRUNCATE | LANDLOCK_ACCESS_FS_REMOVE_DIR
                  | LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG
                  | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM
                  | LANDLOCK_ACCESS_FS_REFER;
    if (access & EXT_LANDLOCK_DEVICE)
        rights |= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | RIGHT_TRUNCATE | RIGHT_IOCTL_DEV;
    if (!is_directory)
        rights &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE
                  | RIGHT_TRUNCATE | RIGHT_IOCTL_DEV;
    return rights & handled_rights(abi);
}

int ext_landlock_allow(int ruleset_fd, int abi, const char *path, unsigned access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat info;
    if (fstat(fd, &info) != 0) {
        int error = errno;
        close(fd);
        errno = error;
        return -1;
    }
    struct path_beneath rule = {
        .allowed_access = rights_for(access, abi, S_ISDIR(info.st_mode)),
        .parent_fd = fd,
    };
    long status = rule.allowed_access == 0 ? 0 : syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int error = errno;
    close(fd);
    errno = error;
    return status == 0 ? 0 : -1;
}

/* ---- seccomp ---- */

/* Calls a widget never needs: debugging others, the kernel's and the machine's
   administration, namespaces, keyrings and io_uring (whose operations bypass this
   filter). By name: libseccomp knows each architecture's numbers, and skips a call
   that an architecture lacks (iopl and ioperm exist on x86 only). */
static const char *const denied_calls[] = {
    "ptrace", "process_vm_readv", "process_vm_writev",
    "mount", "umount", "umount2", "pivot_root", "chroot",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at",
    "bpf", "perf_event_open", "userfaultfd",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "keyctl", "add_key", "request_key",
    "setns", "unshare",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
    "clock_settime", "clock_settime64", "clock_adjtime", "clock_adjtime64", "settimeofday", "adjtimex",
    "sethostname", "setdomainname", "vhangup",
    "iopl", "ioperm",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
};

/* clone(2) with any of these flags makes a namespace. */
static const unsigned long namespace_flags[] = {
    CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
};

#define COUNT(array) (sizeof array / sizeof array[0])

size_t ext_seccomp_denied_count(void) { return COUNT(denied_calls); }

const char *ext_seccomp_denied_name(size_t index) { return index < COUNT(denied_calls) ? denied_calls[index] : NULL; }

/* The deny-list as a libseccomp filter for `arch` (an AUDIT_ARCH_* value, 0: native). */
static int build(scmp_filter_ctx filter, uint32_t arch)
{
    const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
    int status = 0;
    if (arch != 0 && seccomp_arch_native() != arch) {
        if ((status = seccomp_arch_add(filter, arch)) != 0 || (status = seccomp_arch_remove(filter, SCMP_ARCH_NATIVE)) != 0)
            return status;
    }
    /* Another architecture's calling convention (i386 through int 0x80, x32) would bypass
       the numbers below: libseccomp answers every call made through it with this. */
    if ((status = seccomp_attr_set(filter, SCMP_FLTATR_ACT_BADARCH, deny)) != 0)
        return status;
    /* A binary search over the call numbers, not a list: the kernel runs the program once
       per call number when it is attached, at every launch (bench/README.md, "The launch
       floor, third pass"), and the extension runs it at every call. A libseccomp that
       cannot build one builds the list, which denies the same calls. */
    (void)seccomp_attr_set(filter, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    for (size_t index = 0; index < COUNT(denied_calls); index++) {
        int call = seccomp_syscall_resolve_name(denied_calls[index]);
        if (call == __NR_SCMP_ERROR)
            continue; /* newer than this libseccomp */
        if ((status = seccomp_rule_add(filter, deny, call, 0)) != 0)
            return status;
    }
    /* clone3 passes its flags in memory, out of a filter's reach: ENOSYS makes libc fall
       back to clone, whose flags (the first argument on every supported architecture)
       are checked. */
    if ((status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0)) != 0)
        return status;
    for (size_t index = 0; index < COUNT(namespace_flags); index++) {
        scmp_datum_t flag = namespace_flags[index];
        if ((status = seccomp_rule_add(filter, deny, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag))) != 0)
            return status;
    }
    return 0;
}

int ext_seccomp_program(uint32_t arch, struct ext_seccomp_program *program)
{
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (filter == NULL)
        return -ENOMEM;
    int status = build(filter, arch);
    int memory = status == 0 ? memfd_create("seccomp-filter", MFD_CLOEXEC) : -1;
    if (status == 0 && memory < 0)
        status = -errno;
    if (status == 0)
        status = seccomp_export_bpf(filter, memory);
    seccomp_release(filter);
    struct stat info;
    if (status == 0 && fstat(memory, &info) != 0)
        status = -errno;
    struct sock_filter *instructions = status == 0 ? malloc((size_t)info.st_size) : NULL;
    if (status == 0 && instructions == NULL)
        status = -ENOMEM;
    if (status == 0 && pread(memory, instructions, (size_t)info.st_size, 0) != info.st_size)
        status = -EIO;
    if (memory >= 0)
        close(memory);
    if (status != 0) {
        free(instructions);
        return status;
    }
    program->filter.len = (unsigned short)((size_t)info.st_size / sizeof *instructions);
    program->filter.filter = instructions;
    return 0;
}

static struct ext_seccomp_program native;
static pthread_mutex_t native_lock = PTHREAD_MUTEX_INITIALIZER;

const void *ext_seccomp_deny_list(void)
{
    /* Built at the first call that succeeds: a failure (no descriptor left for the
       export's memfd, say) is not kept, the next launch tries again. */
    pthread_mutex_lock(&native_lock);
    int status = native.filter.filter != NULL ? 0 : ext_seccomp_program(0, &native);
    pthread_mutex_unlock(&native_lock);
    if (status != 0) {
        errno = -status;
        return NULL;
    }
    return &native.filter;
}

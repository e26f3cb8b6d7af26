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
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
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

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

/* Calls a widget never needs: debugging others, the kernel's and the machine's
   administration, namespaces and keyrings. */
static const int denied_calls[] = {
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot,
    __NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick, __NR_move_mount, __NR_open_tree,
#ifdef __NR_mount_setattr
    __NR_mount_setattr,
#endif
    __NR_open_by_handle_at, __NR_name_to_handle_at,
    __NR_bpf, __NR_perf_event_open, __NR_userfaultfd,
    __NR_kexec_load, __NR_kexec_file_load, __NR_init_module, __NR_finit_module, __NR_delete_module,
    __NR_keyctl, __NR_add_key, __NR_request_key,
    __NR_setns, __NR_unshare,
    __NR_reboot, __NR_swapon, __NR_swapoff, __NR_acct, __NR_quotactl,
#ifdef __NR_quotactl_fd
    __NR_quotactl_fd,
#endif
    __NR_clock_settime, __NR_clock_adjtime, __NR_settimeofday, __NR_adjtimex,
    __NR_sethostname, __NR_setdomainname, __NR_vhangup,
#ifdef __NR_iopl
    __NR_iopl, __NR_ioperm,
#endif
    /* io_uring runs requests in kernel workers, out of the reach of this filter. */
#ifdef __NR_io_uring_setup
    __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
#endif
};

/* clone(2) with any of these flags makes a namespace. */
#define NAMESPACE_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

enum { DENIED_COUNT = sizeof denied_calls / sizeof denied_calls[0] };
enum { PROGRAM_CAPACITY = DENIED_COUNT + 16 };

static struct sock_filter program[PROGRAM_CAPACITY];
static struct sock_fprog compiled;
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

#define STATEMENT(code, k) ((struct sock_filter){ (unsigned short)(code), 0, 0, (unsigned)(k) })
#define JUMP(code, k, yes, no) ((struct sock_filter){ (unsigned short)(code), (unsigned char)(yes), (unsigned char)(no), (unsigned)(k) })

static void compile(void)
{
#ifdef NATIVE_ARCH
    size_t length = 0;
    const unsigned deny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
    /* Another architecture's calling convention (i386 through int 0x80, x32) would
       bypass the numbers below: refuse every call made through it. */
    program[length++] = STATEMENT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    program[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
    program[length++] = STATEMENT(BPF_RET | BPF_K, deny);
    program[length++] = STATEMENT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    program[length++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000 /* __X32_SYSCALL_BIT */, 0, 1);
    program[length++] = STATEMENT(BPF_RET | BPF_K, deny);
#endif
    /* clone3 passes its flags in memory, out of a filter's reach: ENOSYS makes libc fall
       back to clone, whose flags are checked below. */
    program[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
    program[length++] = STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
    program[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4);
    program[length++] = STATEMENT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    program[length++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, NAMESPACE_FLAGS, 0, 1);
    program[length++] = STATEMENT(BPF_RET | BPF_K, deny);
    program[length++] = STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    for (size_t index = 0; index < DENIED_COUNT; index++) {
        /* Jump over the remaining comparisons to the final "deny" on a match. */
        size_t remaining = DENIED_COUNT - index - 1;
        program[length++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied_calls[index], remaining + 1, 0);
    }
    program[length++] = STATEMENT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    program[length++] = STATEMENT(BPF_RET | BPF_K, deny);
    compiled.len = (unsigned short)length;
    compiled.filter = program;
#endif
}

const void *ext_seccomp_deny_list(void)
{
    pthread_once(&compile_once, compile);
    if (compiled.filter == NULL) {
        errno = ENOTSUP;
        return NULL;
    }
    return &compiled;
}

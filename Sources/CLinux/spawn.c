/*
 * The spawner: fork (clone3) and everything a child needs before execve.
 *
 * Between the clone and execve the child runs only raw, async-signal-safe
 * system calls: after a raw clone3 glibc still believes the parent's other
 * threads exist, so its multi-thread-aware wrappers (setuid and friends) must
 * not be used; credentials are changed with the raw system calls instead.
 */
#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The child shares the parent's descriptor table (CLONE_FILES) and, once it has joined
 * its v1 groups, unshares it with close_range(CLOSE_RANGE_UNSHARE): the kernel copies only
 * the descriptors below a bound into the child's own table. Without this, a daemon
 * holding thousands of descriptors (pidfds, pipes, sockets of its processes) paid
 * for copying every one of them at each clone and closing every one at each exec:
 * a cost per launch that grew with the number of processes running. The child's
 * descriptors are therefore dup'ed into a few low slots first, reserved once and
 * pointed back at /dev/null after each spawn; spawns are serialised around them.
 * Only the spawning thread waits for the child (CLONE_VFORK): the daemon's other threads
 * go on while the child shares the table. They never close the slots or the v1 groups'
 * held directories, and open only close-on-exec descriptors, which the child copies at
 * most below the slots and closes at exec (install_fds).
 */
enum { SLOT_REPORT, SLOT_STDOUT, SLOT_STDERR, SLOT_EXTENSION, SLOT_LANDLOCK, SLOT_COUNT };
static int slots[SLOT_COUNT] = { -1, -1, -1, -1, -1 };
static int slot_filler = -1;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reserves the slots on first use; 0 or -1 with errno. */
static int reserve_slots(void)
{
    if (slot_filler >= 0)
        return 0;
    int filler = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (filler < 0)
        return -1;
    for (int index = 0; index < SLOT_COUNT; index++) {
        slots[index] = fcntl(filler, F_DUPFD_CLOEXEC, 3);
        if (slots[index] < 0) {
            int error = errno;
            for (int taken = 0; taken < index; taken++)
                close(slots[taken]);
            close(filler);
            errno = error;
            return -1;
        }
    }
    slot_filler = filler;
    return 0;
}

/* `fd` in slot `index` (CLOEXEC), or -1 when `fd` is -1. */
static int place(int fd, int index)
{
    if (fd < 0)
        return -1;
    return dup3(fd, slots[index], O_CLOEXEC) < 0 ? -2 : slots[index];
}

/* The descriptors above every slot: what the child does not keep. */
static unsigned int above_slots(void)
{
    int highest = 0;
    for (int index = 0; index < SLOT_COUNT; index++)
        highest = slots[index] > highest ? slots[index] : highest;
    return (unsigned int)highest + 1;
}

static void release_slots(void)
{
    for (int index = 0; index < SLOT_COUNT; index++)
        dup3(slot_filler, slots[index], O_CLOEXEC);
}

/* What a child that failed before exec writes to the report pipe. */
struct child_report {
    int step;
    int error;
    int detail;
};

static void __attribute__((noreturn))
report_failure(int report_fd, enum ext_spawn_step step, int detail)
{
    struct child_report report = { .step = step, .error = errno, .detail = detail };
    ssize_t written;
    do {
        written = write(report_fd, &report, sizeof report);
    } while (written < 0 && errno == EINTR);
    _exit(127);
}

/* Decimal digits of `value` (non-negative or negative) into `buffer`; returns the length. */
static size_t format_decimal(long value, char buffer[24])
{
    char reversed[24];
    size_t count = 0;
    unsigned long magnitude = value < 0 ? 0UL - (unsigned long)value : (unsigned long)value;
    do {
        reversed[count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    size_t length = 0;
    if (value < 0)
        buffer[length++] = '-';
    while (count > 0)
        buffer[length++] = reversed[--count];
    return length;
}

static int write_decimal(int directory, const char *path, long value)
{
    char digits[24];
    size_t length = format_decimal(value, digits);
    return ext_write_file_at(directory, path, digits, length);
}

/* Moves `fd` to a number above 3 so that installing fds 0-3 cannot clobber it. */
static int above_standard_fds(int fd)
{
    if (fd < 0 || fd > 3)
        return fd;
    return fcntl(fd, F_DUPFD_CLOEXEC, 4);
}

static void reset_signals(int report_fd)
{
    /* The kernel's struct sigaction with SIG_DFL, no flags and an empty mask
       is all zeros. The raw call also resets glibc's two reserved real-time
       signals, which its sigaction refuses to touch. */
    unsigned long default_action[4] = { 0, 0, 0, 0 };
    for (int signal = 1; signal < _NSIG; signal++) {
        if (signal == SIGKILL || signal == SIGSTOP)
            continue;
        if (syscall(SYS_rt_sigaction, signal, default_action, NULL, sizeof(uint64_t)) != 0)
            report_failure(report_fd, EXT_SPAWN_STEP_SIGNALS, signal);
    }
    uint64_t empty = 0;
    if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &empty, NULL, sizeof empty) != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_SIGNALS, 0);
}

static void install_fds(const struct ext_spawn_request *request, int *report_fd)
{
    int moved_report = above_standard_fds(*report_fd);
    if (moved_report < 0)
        report_failure(*report_fd, EXT_SPAWN_STEP_STDIO, 0);
    *report_fd = moved_report;

    int out = above_standard_fds(request->stdout_fd);
    int err = above_standard_fds(request->stderr_fd);
    if ((request->stdout_fd >= 0 && out < 0) || (request->stderr_fd >= 0 && err < 0))
        report_failure(*report_fd, EXT_SPAWN_STEP_STDIO, 0);
    int extension = above_standard_fds(request->extension_fd);
    if (request->extension_fd >= 0 && extension < 0)
        report_failure(*report_fd, EXT_SPAWN_STEP_EXTENSION_FD, 0);
    int null = above_standard_fds(open("/dev/null", O_RDWR | O_CLOEXEC));
    if (null < 0)
        report_failure(*report_fd, EXT_SPAWN_STEP_STDIO, 0);

    if (dup2(null, 0) < 0 || dup2(out >= 0 ? out : null, 1) < 0 || dup2(err >= 0 ? err : null, 2) < 0)
        report_failure(*report_fd, EXT_SPAWN_STEP_STDIO, 0);
    if (extension >= 0 && dup2(extension, 3) < 0)
        report_failure(*report_fd, EXT_SPAWN_STEP_EXTENSION_FD, 0);

    /* Everything else, the report pipe included, closes at exec. */
    unsigned int first_closed = extension >= 0 ? 4 : 3;
    if (syscall(SYS_close_range, first_closed, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
        report_failure(*report_fd, EXT_SPAWN_STEP_CLOSE_FDS, 0);
}

/* A new network namespace has only `lo`, and it is down: bring it up. */
static int isolate_network(void)
{
    if (syscall(SYS_unshare, CLONE_NEWNET) != 0)
        return -1;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct ifreq request;
    memset(&request, 0, sizeof request);
    memcpy(request.ifr_name, "lo", 3);
    int status = ioctl(fd, SIOCGIFFLAGS, &request);
    if (status == 0) {
        request.ifr_flags |= IFF_UP;
        status = ioctl(fd, SIOCSIFFLAGS, &request);
    }
    int error = errno;
    close(fd);
    errno = error;
    return status;
}

/* no_new_privs, Landlock: everything but the seccomp filter, which comes last so that
   the calls of the set-up itself are not filtered. */
static void enter_sandbox(const struct ext_spawn_request *request, int report_fd)
{
    if (request->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_NO_NEW_PRIVS, 0);
    if (request->landlock_ruleset_fd >= 0 && syscall(SYS_landlock_restrict_self, request->landlock_ruleset_fd, 0) != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_LANDLOCK, 0);
}

/* The parent's pid as the daemon sees it. In a new PID namespace getppid() is 0 (the
   parent is outside), so it is read from /proc, whose namespace is the daemon's; -1 if
   that fails. */
static pid_t parent_pid(const struct ext_spawn_request *request)
{
    if (!request->new_pid_namespace)
        return getppid();
    char stat[512];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t length = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (length <= 0)
        return -1;
    stat[length] = '\0';
    /* "pid (comm) state ppid ...": comm may hold ')', so after the last one. */
    char *field = strrchr(stat, ')');
    if (field == NULL || field[1] != ' ' || field[2] == '\0' || field[3] != ' ')
        return -1;
    pid_t ppid = 0;
    for (field += 4; *field >= '0' && *field <= '9'; field++)
        ppid = ppid * 10 + (*field - '0');
    return ppid;
}

/* v1: the child joins its groups, each `tasks` file already open for writing (the daemon's loop
   opened them while the previous child was being set up) or opened from the daemon's open
   directory above it (a walk of two components instead of the whole path) and closed again
   at once. It runs first, while the descriptor table is still the daemon's, where those
   descriptors are (the daemon closes them only when no spawn that uses them is under way). */
static void join_cgroups(const struct ext_spawn_request *request, int report_fd)
{
    if (request->cgroup_task_files == NULL)
        return;
    /* 0 is the writer itself, also in a new PID namespace (where getpid() is 1). The
       child is one thread: moving it alone spares the kernel the lock of a whole
       thread group's move (`cgroup.procs`), whose write side waits for an RCU grace
       period (bench/README.md, "The launch floor, again"). */
    for (int index = 0; request->cgroup_task_files[index] != NULL; index++) {
        int status;
        if (request->cgroup_task_fds != NULL) {
            status = ext_write_open_file(request->cgroup_task_fds[index], "0", 1);
        } else {
            int directory = request->cgroup_task_directories != NULL ? request->cgroup_task_directories[index] : AT_FDCWD;
            status = write_decimal(directory, request->cgroup_task_files[index], 0);
        }
        if (status != 0)
            report_failure(report_fd, EXT_SPAWN_STEP_CGROUP, index);
    }
}

static void __attribute__((noreturn))
run_child(const struct ext_spawn_request *request, int report_fd, pid_t parent, unsigned int kept_below)
{
    join_cgroups(request, report_fd);
    /* Until this the table is the parent's too (see the slots above). */
    if (syscall(SYS_close_range, kept_below, ~0U, CLOSE_RANGE_UNSHARE) != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_CLOSE_FDS, 0);
    reset_signals(report_fd);

    if (setsid() < 0)
        report_failure(report_fd, EXT_SPAWN_STEP_SETSID, 0);

    if (request->set_oom_score_adj && write_decimal(AT_FDCWD, "/proc/self/oom_score_adj", request->oom_score_adj) != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_OOM_SCORE_ADJ, 0);

    /* Needs CAP_SYS_ADMIN and CAP_NET_ADMIN: before the credentials change. */
    if (request->isolate_network && isolate_network() != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_NETWORK, 0);

    if (request->set_credentials) {
        if (syscall(SYS_setgroups, request->group_count, request->groups) != 0)
            report_failure(report_fd, EXT_SPAWN_STEP_SETGROUPS, 0);
        if (syscall(SYS_setgid, request->gid) != 0)
            report_failure(report_fd, EXT_SPAWN_STEP_SETGID, 0);
        if (syscall(SYS_setuid, request->uid) != 0)
            report_failure(report_fd, EXT_SPAWN_STEP_SETUID, 0);
    }

    /* After the credentials: changing them clears the parent-death signal. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_PARENT_DEATH, 0);
    if (parent_pid(request) != parent) {
        /* The parent died before the death signal was armed. */
        errno = ESRCH;
        report_failure(report_fd, EXT_SPAWN_STEP_PARENT_DEATH, 0);
    }

    if (request->working_directory != NULL && chdir(request->working_directory) != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_CHDIR, 0);

    enter_sandbox(request, report_fd);
    install_fds(request, &report_fd);

    if (request->seccomp_program != NULL
        && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, request->seccomp_program) != 0)
        report_failure(report_fd, EXT_SPAWN_STEP_SECCOMP, 0);

    execve(request->path, request->argv, request->envp);
    report_failure(report_fd, EXT_SPAWN_STEP_EXEC, 0);
}

struct child_arguments {
    const struct ext_spawn_request *request;
    int report_fd;
    pid_t parent;
    unsigned int kept_below;
};

static int child_entry(void *raw)
{
    struct child_arguments *arguments = raw;
    run_child(arguments->request, arguments->report_fd, arguments->parent, arguments->kept_below);
}

/* The child's stack for CLONE_VM: one mapping, made at the first spawn and kept, used by
   one child at a time (spawns hold the slots' lock until the child has exec'ed). A mapping
   and an unmapping per launch cost more than the child's own calls (bench/README.md, "The
   launch floor, third pass"). */
enum { CHILD_STACK_SIZE = 128 * 1024 };
static void *child_stack = MAP_FAILED;

/* The stack, mapped on first use; MAP_FAILED if it cannot be. */
static void *reserve_child_stack(void)
{
    if (child_stack == MAP_FAILED)
        child_stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    return child_stack;
}

static int parent_failure(struct ext_spawn_result *result, enum ext_spawn_step step, int error)
{
    result->failed_step = step;
    result->error = error;
    return -1;
}

static void reap(pid_t pid)
{
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}

static int spawn_from_slots(const struct ext_spawn_request *original, int report_pipe[2], struct ext_spawn_result *result);

int ext_spawn(const struct ext_spawn_request *request, struct ext_spawn_result *result)
{
    memset(result, 0, sizeof *result);
    result->pid = -1;
    result->pidfd = -1;

    int report_pipe[2];
    if (pipe2(report_pipe, O_CLOEXEC) != 0)
        return parent_failure(result, EXT_SPAWN_STEP_PIPE, errno);

    pthread_mutex_lock(&slots_lock);
    int status = spawn_from_slots(request, report_pipe, result);
    /* A spawn that got as far as the clone released them already. */
    if (status != 0)
        release_slots();
    pthread_mutex_unlock(&slots_lock);
    close(report_pipe[0]);
    close(report_pipe[1]);
    return status;
}

/* The spawn itself, with the slots held: the child gets `request` with its
   descriptors moved into the slots. Closes neither end of the report pipe. */
static int spawn_from_slots(const struct ext_spawn_request *original, int report_pipe[2], struct ext_spawn_result *result)
{
    if (reserve_slots() != 0)
        return parent_failure(result, EXT_SPAWN_STEP_SLOTS, errno);
    struct ext_spawn_request placed = *original;
    const struct ext_spawn_request *request = &placed;
    int report_fd = place(report_pipe[1], SLOT_REPORT);
    placed.stdout_fd = place(original->stdout_fd, SLOT_STDOUT);
    placed.stderr_fd = place(original->stderr_fd, SLOT_STDERR);
    placed.extension_fd = place(original->extension_fd, SLOT_EXTENSION);
    placed.landlock_ruleset_fd = place(original->landlock_ruleset_fd, SLOT_LANDLOCK);
    if (report_fd == -2 || placed.stdout_fd == -2 || placed.stderr_fd == -2 || placed.extension_fd == -2
        || placed.landlock_ruleset_fd == -2)
        return parent_failure(result, EXT_SPAWN_STEP_SLOTS, errno);
    unsigned int kept_below = above_slots();

    /* No handler of the parent may run in the child before dispositions are reset. */
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);

    pid_t parent = getpid();
    int pidfd = -1;
    struct clone_args args;
    memset(&args, 0, sizeof args);
    /* CLONE_VFORK: this thread must not touch the slots before the child has exec'ed. */
    args.flags = CLONE_PIDFD | CLONE_FILES | CLONE_VFORK;
    /* Its init: when it dies the kernel kills every process of the namespace, whatever
       cgroup they moved to and however they forked. */
    unsigned long namespace_flag = request->new_pid_namespace ? CLONE_NEWPID : 0;
    args.flags |= namespace_flag;
    args.pidfd = (uint64_t)(uintptr_t)&pidfd;
    args.exit_signal = SIGCHLD;
    if (request->cgroup_directory_fd >= 0) {
        args.flags |= CLONE_INTO_CGROUP;
        args.cgroup = (uint64_t)request->cgroup_directory_fd;
    }
    pid_t pid;
    void *stack = MAP_FAILED;
    if (request->cgroup_directory_fd < 0)
        stack = reserve_child_stack();
    if (stack != MAP_FAILED) {
        /* Like posix_spawn: the child borrows our memory until it execs (CLONE_VM |
           CLONE_VFORK), so no page tables are copied and no copy-on-write faults
           follow. The child only makes raw system calls and touches nothing of ours
           but its arguments. */
        struct child_arguments arguments = { request, report_fd, parent, kept_below };
        pid = clone(child_entry, (char *)stack + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | CLONE_FILES | CLONE_PIDFD | namespace_flag | SIGCHLD,
                    &arguments, &pidfd);
    } else {
        /* v2 starts the child in its cgroup, which needs clone3 (without a shared stack). */
        pid = (pid_t)syscall(SYS_clone3, &args, sizeof args);
    }
    int clone_error = errno;
    int needs_pidfd = 0;
    /* Seccomp filters of container runtimes often refuse clone3 with ENOSYS. */
    if (pid < 0 && clone_error == ENOSYS && request->cgroup_directory_fd < 0) {
        /* fork() as the raw clone, which can make the namespace. */
        pid = (pid_t)syscall(SYS_clone, SIGCHLD | namespace_flag, NULL, NULL, NULL, NULL);
        clone_error = errno;
        needs_pidfd = 1;
    }
    if (pid == 0)
        run_child(request, report_fd, parent, kept_below);

    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    /* The child has exec'ed or failed (vfork, or the fork fallback's own copy): only
       its end of the pipe keeps the report open. */
    release_slots();
    close(report_pipe[1]);
    report_pipe[1] = -1;
    if (pid < 0)
        return parent_failure(result, EXT_SPAWN_STEP_CLONE, clone_error);
    if (needs_pidfd) {
        pidfd = ext_pidfd_open(pid);
        if (pidfd < 0) {
            int error = errno;
            kill(pid, SIGKILL);
            reap(pid);
            return parent_failure(result, EXT_SPAWN_STEP_PIDFD, error);
        }
    }

    struct child_report report;
    ssize_t received;
    do {
        received = read(report_pipe[0], &report, sizeof report);
    } while (received < 0 && errno == EINTR);

    if (received == (ssize_t)sizeof report) {
        reap(pid);
        close(pidfd);
        result->detail = report.detail;
        return parent_failure(result, (enum ext_spawn_step)report.step, report.error);
    }
    /* End of file: execve succeeded and closed the pipe. */
    result->pid = pid;
    result->pidfd = pidfd;
    return 0;
}

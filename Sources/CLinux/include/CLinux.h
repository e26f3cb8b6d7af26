#ifndef EXTENSIOND_CLINUX_H
#define EXTENSIOND_CLINUX_H
/*
 * What Swift must not do itself: the code between fork and exec, and the raw
 * system calls that glibc does not wrap (or wraps only in newer versions) or that
 * Swift's Glibc module does not import (epoll, timerfd, signalfd, memfd, SCM_RIGHTS).
 *
 * This target owns no policy: it starts a child exactly as asked and reports
 * precisely which step failed.
 */

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/types.h>

#include "loop_device.h"

/* The step of a spawn that failed; reported with the errno of that step. */
enum ext_spawn_step {
    EXT_SPAWN_OK = 0,
    EXT_SPAWN_STEP_PIPE,            /* parent: the error-report pipe */
    EXT_SPAWN_STEP_CLONE,           /* parent: clone3 / fork */
    EXT_SPAWN_STEP_PIDFD,           /* parent: pidfd_open on the fork path */
    EXT_SPAWN_STEP_SIGNALS,         /* child: dispositions and mask */
    EXT_SPAWN_STEP_SETSID,          /* child: new session */
    EXT_SPAWN_STEP_PARENT_DEATH,    /* child: PR_SET_PDEATHSIG, or the parent already died */
    EXT_SPAWN_STEP_CGROUP,          /* child: writing its pid to cgroup_task_files[detail] */
    EXT_SPAWN_STEP_OOM_SCORE_ADJ,   /* child: /proc/self/oom_score_adj */
    EXT_SPAWN_STEP_SETGROUPS,
    EXT_SPAWN_STEP_SETGID,
    EXT_SPAWN_STEP_SETUID,
    EXT_SPAWN_STEP_CHDIR,
    EXT_SPAWN_STEP_STDIO,           /* child: fds 0, 1, 2 */
    EXT_SPAWN_STEP_EXTENSION_FD,    /* child: fd 3 */
    EXT_SPAWN_STEP_CLOSE_FDS,       /* child: close_range of every other fd */
    EXT_SPAWN_STEP_EXEC,
    EXT_SPAWN_STEP_NETWORK,         /* child: a new network namespace with loopback up */
    EXT_SPAWN_STEP_NO_NEW_PRIVS,    /* child: PR_SET_NO_NEW_PRIVS */
    EXT_SPAWN_STEP_LANDLOCK,        /* child: landlock_restrict_self */
    EXT_SPAWN_STEP_SECCOMP,         /* child: installing the seccomp filter */
    EXT_SPAWN_STEP_SLOTS,           /* parent: the child's descriptors into the low slots */
};

/* What to start and how. Every pointer stays owned by the caller. */
struct ext_spawn_request {
    const char *path;                      /* passed to execve as is */
    char *const *argv;                     /* NULL-terminated */
    char *const *envp;                     /* NULL-terminated */
    const char *working_directory;         /* NULL: inherit */
    int cgroup_directory_fd;               /* v2 cgroup directory for CLONE_INTO_CGROUP, or -1 */
    const char *const *cgroup_task_files; /* v1 `tasks` files the child joins, NULL-terminated, or NULL */
    const int *cgroup_task_directories;    /* per task file: the open directory it is relative to, or AT_FDCWD */
    const int *cgroup_task_fds;            /* per task file: already open for writing (the child only writes), or NULL */
    int set_oom_score_adj;                 /* nonzero: write oom_score_adj */
    int oom_score_adj;
    int set_credentials;                   /* nonzero: setgroups, setgid, setuid */
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    size_t group_count;
    int stdout_fd;                         /* -1: /dev/null */
    int stderr_fd;                         /* -1: /dev/null */
    int extension_fd;                      /* placed at fd 3, or -1 for none */
    int new_pid_namespace;                 /* nonzero: the child is init of a new PID namespace (CAP_SYS_ADMIN) */
    /* The sandbox, applied in this order after the credentials change. */
    int isolate_network;                   /* nonzero: a new network namespace, only loopback, up */
    int no_new_privs;                      /* nonzero: PR_SET_NO_NEW_PRIVS */
    int landlock_ruleset_fd;               /* from ext_landlock_ruleset, or -1 */
    const void *seccomp_program;           /* from ext_seccomp_deny_list, or NULL; needs no_new_privs */
};

/* The child, or the step that failed. */
struct ext_spawn_result {
    pid_t pid;
    int pidfd;                  /* CLOEXEC; owned by the caller on success */
    enum ext_spawn_step failed_step;
    int error;                  /* errno of failed_step */
    int detail;                 /* STEP_CGROUP: index of the cgroup.procs file; STEP_SIGNALS: the signal, or 0 for the mask */
};

/*
 * Starts a child as described by `request`. Returns 0 and fills pid and pidfd,
 * or returns -1 and fills failed_step, error and detail; a child that failed
 * before exec has already been reaped. Only async-signal-safe calls run in the
 * child.
 */
int ext_spawn(const struct ext_spawn_request *request, struct ext_spawn_result *result);

/* ---- The extension sandbox, built in the parent (see sandbox.c) ---- */

/* Access classes of a Landlock rule; mapped to the rights the kernel's ABI knows. */
enum ext_landlock_access {
    EXT_LANDLOCK_READ = 1,    /* read files, list directories */
    EXT_LANDLOCK_EXECUTE = 2, /* execute files (and map them executable) */
    EXT_LANDLOCK_WRITE = 4,   /* write, create, remove, rename */
    EXT_LANDLOCK_DEVICE = 8,  /* read, write and ioctl a device file */
};

/* The Landlock ABI version of the running kernel; 0 when it has none (or it is
   disabled), -1 with errno on another error. */
int ext_landlock_abi(void);
/* A new ruleset handling every file-system right of `abi` (and, from ABI 6, scoping
   signals and abstract UNIX sockets to the sandbox). Returns a close-on-exec fd, or
   -1 with errno. */
int ext_landlock_ruleset(int ruleset_abi);
/* Allows `access` (EXT_LANDLOCK_*) beneath `path` (a directory) or on `path` (a file).
   Returns 0, or -1 with errno (ENOENT: the path does not exist). */
int ext_landlock_allow(int ruleset_fd, int abi, const char *path, unsigned access);
/* The seccomp deny-list (docs/SECURITY.md) as a BPF program built by libseccomp. */
struct ext_seccomp_program {
    struct sock_fprog filter;
};
/* Builds it for `arch` (an AUDIT_ARCH_* value, 0: this machine's); the caller frees
   `filter.filter`. Returns 0 or a negative errno. */
int ext_seccomp_program(uint32_t arch, struct ext_seccomp_program *program);
/* This machine's program (a struct sock_fprog, built by the first call that succeeds, never freed), or
   NULL with errno. The child of a spawn only installs it. */
const void *ext_seccomp_deny_list(void);
/* The names of the denied calls, for tests and documentation. */
size_t ext_seccomp_denied_count(void);
const char *ext_seccomp_denied_name(size_t index);

/* Thin system-call wrappers; they return -1 and set errno on failure. */
int ext_pidfd_open(pid_t pid);
int ext_pidfd_send_signal(int pidfd, int signal);
/* Frees the memory of the killed process behind `pidfd` now, in the caller's context
   (Linux 5.15+; ENOSYS before, EINVAL when the process is not dying). */
int ext_process_mrelease(int pidfd);
/* A non-blocking, close-on-exec eventfd with counter 0 (cgroup v1 notifications, the blocking worker). */
int ext_eventfd(void);
/* The calling thread's id (Linux keeps a nice value per thread). */
pid_t ext_gettid(void);

/* A pipe whose ends are close-on-exec from the start (pipe2 is not imported into Swift):
 * another thread may spawn a process between pipe and fcntl. */
int ext_pipe_cloexec(int ends[2]);
/* accept4 with SOCK_CLOEXEC (not imported into Swift either), for the same reason. */
int ext_accept_cloexec(int fd);
/* A non-blocking, close-on-exec inotify descriptor watching `path` for
   IN_MODIFY (cgroup v2 events files). */
int ext_inotify_watch(const char *path);
/* Waits for the process of `pidfd` to exit (WEXITED; `nohang` adds WNOHANG).
   Returns 0 with *code and *status set (CLD_EXITED, CLD_KILLED, ...), 1 when
   nohang and the process still runs, -1 on error. */
int ext_pidfd_wait(int pidfd, int nohang, int *code, int *status);

/*
 * Reads a whole file (procfs and cgroupfs report size 0) into a malloc'ed,
 * NUL-terminated buffer that the caller frees. Returns NULL and sets errno on
 * failure.
 */
char *ext_read_file(const char *path, size_t *length);

/* Writes `data` to an existing file with one write(2), as control files of cgroupfs and procfs
   require; only a regular file is truncated first. Returns 0, or -1 with errno set. */
int ext_write_file(const char *path, const char *data, size_t length);
/* The same with `path` walked from the open directory `directory` (or AT_FDCWD). */
int ext_write_file_at(int directory, const char *path, const char *data, size_t length);
/* Its two halves: the file opened for writing (a regular file with content truncated), the
   descriptor or -1 with errno; and one write(2) of `data` to it, 0 or -1 with errno. */
int ext_open_control_file_at(int directory, const char *path);
int ext_write_open_file(int fd, const char *data, size_t length);

/* A directory opened only to walk paths from (O_PATH, CLOEXEC): the descriptor, or -1 with errno. */
int ext_open_directory_path(const char *path);

/* Drops the resident read-only pages (text, read-only data) of the program and of its
 * shared libraries from its page tables; they fault back in from the page cache when
 * used. 0, or the errno of the first madvise that failed. */
int ext_release_read_only_pages(void);

/* Which file a path names (statx, following symbolic links): a file removed and made
   again is told apart by its birth time even where the file system reuses the inode
   number at once. `born_*` are 0 where the file system keeps no birth time. */
struct ext_file_identity {
    uint64_t device;
    uint64_t inode;
    int64_t born_seconds;
    uint32_t born_nanoseconds;
    int64_t modified_seconds;
    uint32_t modified_nanoseconds;
};

/* Returns 0, or -1 with errno set. */
int ext_file_identity(const char *path, struct ext_file_identity *identity);

#endif

/* System calls that glibc 2.36 does not wrap, or that Swift's Glibc module does not import. */
#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

int ext_pidfd_open(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int ext_pidfd_send_signal(int pidfd, int signal)
{
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

int ext_process_mrelease(int pidfd)
{
#ifdef SYS_process_mrelease
    return (int)syscall(SYS_process_mrelease, pidfd, 0);
#else
    (void)pidfd;
    errno = ENOSYS; /* headers older than the call: as on a kernel without it */
    return -1;
#endif
}

int ext_pidfd_wait(int pidfd, int nohang, int *code, int *status)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int options = WEXITED | (nohang ? WNOHANG : 0);
    int outcome;
    do {
        outcome = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, options);
    } while (outcome < 0 && errno == EINTR);
    if (outcome < 0)
        return -1;
    if (info.si_pid == 0)
        return 1;
    *code = info.si_code;
    *status = info.si_status;
    return 0;
}

int ext_eventfd(void)
{
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

pid_t ext_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

int ext_pipe_cloexec(int ends[2])
{
    return pipe2(ends, O_CLOEXEC);
}

int ext_accept_cloexec(int fd)
{
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC);
}

int ext_inotify_watch(const char *path)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0)
        return -1;
    if (inotify_add_watch(fd, path, IN_MODIFY) < 0) {
        int error = errno;
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

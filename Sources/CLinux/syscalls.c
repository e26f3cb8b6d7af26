/* System calls that glibc 2.36 does not wrap, or that Swift's Glibc module does not import. */
#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/mman.h>
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

int ext_sealed_memfd(const char *name, const void *data, size_t length)
{
    int fd = memfd_create(name, MFD_ALLOW_SEALING | MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    const char *next = data;
    size_t left = length;
    while (left > 0) {
        ssize_t written = write(fd, next, left);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            goto fail;
        next += written;
        left -= (size_t)written;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
        goto fail;
    return fd;
fail:;
    int error = errno;
    close(fd);
    errno = error;
    return -1;
}

int ext_send_descriptor(int socket, const void *address, unsigned address_length, int fd, int flags)
{
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {
        .msg_name = (void *)address,
        .msg_namelen = address_length,
        .msg_control = &control,
        .msg_controllen = sizeof control,
    };
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
    return sendmsg(socket, &message, flags) < 0 ? -1 : 0;
}

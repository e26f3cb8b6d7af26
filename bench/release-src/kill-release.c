/*
 * The measuring side of bench/release: how long after SIGKILL a victim's memory is
 * uncharged from its memory cgroup, with process_mrelease(2) (the killer frees the
 * victim's address space at once, as lmkd and extensiond do) and without it (the
 * victim frees it itself as it exits, when the scheduler gets to it).
 *
 *   kill-release GROUP_PARENT MIB ROUNDS NICE
 *
 * The killer runs at NICE (the shipped unit's Nice=-10, as the daemon), each victim at 0
 * (the daemon starts its processes at 0).
 *
 * Per round and per way (alternated, the order swapped each round): a victim is forked
 * into a new v1 memory group below GROUP_PARENT, touches MIB MiB of anonymous memory and
 * says so; then, timed from just before the signal, SIGKILL through its pidfd (and
 * process_mrelease for the first way), and memory.usage_in_bytes is read in a tight loop
 * until it is back within 1 MiB of what the group held before the victim allocated
 * (uncharged); also when the victim has exited (a zombie, waitid on the pidfd). Prints one key=value line per
 * kill, and the result of process_mrelease (0 or an errno name).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

static void die(const char *what) {
    fprintf(stderr, "kill-release: %s: %s\n", what, strerror(errno));
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static long long read_number(int fd) {
    char text[64];
    ssize_t count = pread(fd, text, sizeof text - 1, 0);
    if (count <= 0) die("read memory.usage_in_bytes");
    text[count] = '\0';
    return atoll(text);
}

static int has_exited(int pidfd) {
    siginfo_t info = {0};
    return waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0;
}

static void write_text(const char *path, const char *text) {
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, text, strlen(text)) < 0) die(path);
    close(fd);
}

static void one_kill(const char *parent, int round, int release, long mib) {
    char group[4096], path[4200];
    snprintf(group, sizeof group, "%s/victim-%d-%d", parent, round, release);
    if (mkdir(group, 0755) != 0) die(group);
    snprintf(path, sizeof path, "%s/memory.usage_in_bytes", group);
    int usage = open(path, O_RDONLY);
    if (usage < 0) die(path);
    snprintf(path, sizeof path, "%s/cgroup.procs", group);

    int ready[2];
    if (pipe(ready) != 0) die("pipe");
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        if (setpriority(PRIO_PROCESS, 0, 0) != 0) _exit(1);
        write_text(path, "0");
        size_t size = (size_t)mib << 20;
        volatile char *memory = malloc(size);  /* volatile: the stores must happen */
        if (!memory) _exit(1);
        for (size_t offset = 0; offset < size; offset += 4096) memory[offset] = 0x5a;
        if (write(ready[1], "r", 1) != 1) _exit(1);
        for (;;) pause();
    }
    close(ready[1]);
    char byte;
    if (read(ready[0], &byte, 1) != 1) die("the victim did not get ready");
    close(ready[0]);
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    if (pidfd < 0) die("pidfd_open");
    long long charged = read_number(usage);
    long long uncharged_at = charged - ((long long)mib << 20) + (1 << 20);

    uint64_t start = now_ns();
    if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) != 0) die("pidfd_send_signal");
    const char *result = "-";
    if (release) result = syscall(SYS_process_mrelease, pidfd, 0) == 0 ? "0" : strerrorname_np(errno);
    uint64_t released = now_ns();
    uint64_t uncharged = 0, exited = 0;
    while (!uncharged || !exited) {
        uint64_t now = now_ns();
        if (!uncharged && read_number(usage) <= uncharged_at) uncharged = now;
        if (!exited && has_exited(pidfd)) exited = now;
        if (now - start > 5000000000ull) break;
    }
    waitpid(child, NULL, 0);
    printf("way=%s mrelease=%s charged_mib=%.1f call_us=%.1f uncharged_us=%.1f exited_us=%.1f\n",
           release ? "mrelease" : "signal", result, charged / 1048576.0, (released - start) / 1e3,
           uncharged ? (uncharged - start) / 1e3 : -1.0, exited ? (exited - start) / 1e3 : -1.0);
    fflush(stdout);
    close(pidfd);
    close(usage);
    if (rmdir(group) != 0) die(group);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: kill-release GROUP_PARENT MIB ROUNDS NICE\n");
        return 2;
    }
    long mib = atol(argv[2]);
    int rounds = atoi(argv[3]);
    if (setpriority(PRIO_PROCESS, 0, atoi(argv[4])) != 0) die("setpriority");
    for (int round = 0; round < rounds; round++) {
        int first = round % 2;
        one_kill(argv[1], round, first, mib);
        one_kill(argv[1], round, !first, mib);
    }
    return 0;
}

/* The bare baseline of the launch benchmark: what 200 launches cost without a
 * supervisor. It starts N copies of an extension the way extensiond does
 * (a connected socket as fd 3, fork and exec), waits for every `ready` line,
 * prints the seconds from the first fork to the last `ready`, then closes the
 * sockets so the children exit, and reaps them.
 *
 * usage: fork-exec-baseline N PROGRAM */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3 || atoi(argv[1]) <= 0) {
        fprintf(stderr, "usage: %s N PROGRAM\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    struct pollfd *sockets = calloc(n, sizeof *sockets);
    pid_t *children = calloc(n, sizeof *children);
    if (!sockets || !children) return 1;

    double start = now();
    for (int i = 0; i < n; i++) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) { perror("socketpair"); return 1; }
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 1; }
        if (pid == 0) {
            /* dup2 clears FD_CLOEXEC on fd 3 only. */
            if (dup2(pair[1], 3) < 0) _exit(127);
            execl(argv[2], argv[2], (char *)NULL);
            _exit(127);
        }
        close(pair[1]);
        children[i] = pid;
        sockets[i] = (struct pollfd){ .fd = pair[0], .events = POLLIN };
    }

    /* The ready line is 31 bytes, far below the socket buffer: one read each. */
    for (int waiting = n; waiting > 0;) {
        if (poll(sockets, n, 5000) <= 0) { fprintf(stderr, "timed out waiting for ready\n"); return 1; }
        for (int i = 0; i < n; i++) {
            if (!(sockets[i].revents & (POLLIN | POLLHUP))) continue;
            char line[128];
            ssize_t count = read(sockets[i].fd, line, sizeof line);
            if (count <= 0 || strncmp(line, "{\"type\":\"ready\"", 15) != 0) {
                fprintf(stderr, "child %d did not send ready\n", i);
                return 1;
            }
            sockets[i].fd = -sockets[i].fd - 1; /* poll ignores negative fds */
            waiting--;
        }
    }
    double elapsed = now() - start;

    for (int i = 0; i < n; i++) close(-sockets[i].fd - 1);
    int failures = 0;
    for (int i = 0; i < n; i++) {
        int status;
        if (waitpid(children[i], &status, 0) != children[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failures++;
    }
    if (failures) { fprintf(stderr, "%d children did not exit cleanly\n", failures); return 1; }
    printf("%.6f\n", elapsed);
    return 0;
}

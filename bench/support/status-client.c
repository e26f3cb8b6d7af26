/* The floor of `supervisorctl status`: the same request on the control socket and its
 * answer copied to stdout, unformatted, from a process that does nothing else.
 * Usage: status-client SOCKET. Compiled by bench/status-load at run time (cc -O2). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char request[] = "{\"command\":\"status\",\"names\":[]}\n";

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof address.sun_path) return 2;
    strcpy(address.sun_path, argv[1]);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) return 7;
    if (write(fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) return 1;
    static char buffer[1 << 16];
    for (;;) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return 1;
        if (write(STDOUT_FILENO, buffer, (size_t)count) != count) return 1;
        if (buffer[count - 1] == '\n') return 0;
    }
}

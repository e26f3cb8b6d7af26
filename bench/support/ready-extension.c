/* The minimal extension of the launch benchmark: it says `ready` on fd 3 and
 * then waits, doing nothing, until the supervisor closes the socket or asks it
 * to terminate. Compiled by bench/launch at run time (cc -O2). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

static const char ready[] = "{\"type\":\"ready\",\"protocol\":1}\n";

int main(void) {
    if (write(3, ready, sizeof ready - 1) != (ssize_t)(sizeof ready - 1)) return 1;
    char buffer[4096];
    for (;;) {
        ssize_t count = read(3, buffer, sizeof buffer - 1);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return 0;
        buffer[count] = '\0';
        /* One read may hold several lines; the daemon only ever sends terminate here. */
        if (strstr(buffer, "\"terminate\"")) return 0;
    }
}

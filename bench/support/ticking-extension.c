/* An idle widget that keeps a timer, as many do (a clock, an animation, a poll): it says
 * `ready` on fd 3, answers every `update` with `newData`, and wakes every 20 ms to do a
 * little work while it waits. Running idle, its cgroup's CPU counter moves; suspended
 * (frozen), it must not. Compiled by bench/suspend and bench/day at run time (cc -O2). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char ready[] = "{\"type\":\"ready\",\"protocol\":1}\n";

int main(void) {
    if (write(3, ready, sizeof ready - 1) != (ssize_t)(sizeof ready - 1)) return 1;
    static char buffer[65536];
    size_t filled = 0;
    volatile unsigned long ticks = 0;
    for (;;) {
        struct pollfd channel = {.fd = 3, .events = POLLIN};
        int ready_count = poll(&channel, 1, 20);
        if (ready_count < 0 && errno == EINTR) continue;
        if (ready_count == 0) {
            for (int spin = 0; spin < 20000; spin++) ticks++;  /* the timer's work */
            continue;
        }
        ssize_t count = read(3, buffer + filled, sizeof buffer - 1 - filled);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return 0;
        filled += (size_t)count;
        buffer[filled] = '\0';
        char *line = buffer, *newline;
        while ((newline = strchr(line, '\n')) != NULL) {
            *newline = '\0';
            if (strstr(line, "\"terminate\"")) return 0;
            char *id = strstr(line, "\"id\":");
            if (strstr(line, "\"update\"") && id) {
                char result[256];
                int length = snprintf(result, sizeof result,
                    "{\"type\":\"result\",\"id\":%ld,\"result\":\"newData\",\"snapshot\":{\"text\":\"tick %lu\"},\"reload\":\"never\"}\n",
                    strtol(id + 5, NULL, 10), ticks);
                if (write(3, result, (size_t)length) != length) return 1;
            }
            line = newline + 1;
        }
        filled = strlen(line);
        memmove(buffer, line, filled);
    }
}

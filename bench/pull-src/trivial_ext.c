/*
 * A trivial extensiond widget for bench/pull, written from docs/PROTOCOL.md.
 *
 * It says `ready`, then answers every `update` at once with `newData` and the reload
 * hint "never" (so the daemon schedules nothing on its own). The snapshot carries two
 * CLOCK_MONOTONIC timestamps in nanoseconds, as strings so that no JSON number
 * conversion can round them: `recvNs`, when the read that brought the update returned,
 * and `sendNs`, just before the result is written. The host subtracts them from its own
 * round trip to get the time spent outside the extension. The `text` field pads the
 * snapshot to the size of a typical widget's.
 *
 * Exits on `terminate` or end of file. The same binary serves the daemon (fd 3) and the
 * direct socketpair baseline of pullgen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

/* The value of the integer field `"id":` in `line`, or -1. */
static long long field_id(const char *line) {
    const char *id = strstr(line, "\"id\":");
    return id ? strtoll(id + 5, NULL, 10) : -1;
}

static int answer(int fd, const char *line, uint64_t received) {
    if (strstr(line, "\"terminate\"")) exit(0);
    if (!strstr(line, "\"update\"")) return 0;  /* memoryWarning and the like need no answer */
    long long id = field_id(line);
    if (id < 0) {
        fprintf(stderr, "trivial_ext: update without id: %s\n", line);
        exit(1);
    }
    char result[512];
    int length = snprintf(result, sizeof result,
        "{\"type\":\"result\",\"id\":%lld,\"result\":\"newData\",\"snapshot\":"
        "{\"text\":\"07:30:05 - load 0.42 - #42 trivial\",\"recvNs\":\"%llu\",\"sendNs\":\"%llu\"},"
        "\"reload\":\"never\"}\n",
        id, (unsigned long long)received, (unsigned long long)now_ns());
    return write_all(fd, result, (size_t)length);
}

int main(void) {
    const char *fd_text = getenv("EXTENSIOND_FD");
    int fd = fd_text ? atoi(fd_text) : 3;
    static const char ready[] = "{\"type\":\"ready\",\"protocol\":1}\n";
    if (write_all(fd, ready, sizeof ready - 1) != 0) return 1;

    static char buffer[1 << 16];
    size_t filled = 0;
    for (;;) {
        ssize_t count = read(fd, buffer + filled, sizeof buffer - 1 - filled);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return 0;
        uint64_t received = now_ns();
        filled += (size_t)count;
        size_t start = 0;
        for (char *newline; (newline = memchr(buffer + start, '\n', filled - start)) != NULL;) {
            *newline = '\0';
            if (answer(fd, buffer + start, received) != 0) return 1;
            start = (size_t)(newline - buffer) + 1;
        }
        memmove(buffer, buffer + start, filled - start);
        filled -= start;
        if (filled == sizeof buffer - 1) {
            fprintf(stderr, "trivial_ext: line longer than %zu bytes\n", sizeof buffer - 1);
            return 1;
        }
    }
}

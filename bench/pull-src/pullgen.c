/*
 * The load generator of bench/pull: hosts on extensiond's host.sock (docs/PROTOCOL.md §3).
 *
 *   pullgen cached SOCKET EXTENSION CONNECTIONS WINDOW SECONDS [DAEMON_PID]
 *     Opens CONNECTIONS host connections and keeps WINDOW pulls outstanding on each
 *     (WINDOW 1 is closed-loop request/response). One thread drives every connection
 *     with epoll, so the generator uses at most one of the machine's cores. After a
 *     0.5 s warm-up it counts the answers of SECONDS seconds: throughput, latency
 *     percentiles (pull written → its snapshot read), answers that were not `cached`,
 *     and the CPU used by the daemon and by the generator meanwhile.
 *
 *   pullgen once SOCKET EXTENSION
 *     One pull; prints its answer (and fails unless it is a snapshot). The first pull
 *     of an extension launches it.
 *
 *   pullgen update SOCKET EXTENSION EXTENSION_BINARY COUNT GAP_US [DAEMON_PID]
 *     Update round trips, side by side, in turn: a waiting pull (`"wait":true`, answered
 *     with the update's snapshot) and a plain pull (answered at once with the expired
 *     snapshot, the update's pushed after) through the daemon, each making it call the
 *     extension (which must answer `newData` with the timestamps of
 *     bench/pull-src/trivial_ext.c, its snapshot fresh for less than GAP_US), and one
 *     `update` sent straight to a second copy of the extension over a socketpair, with
 *     GAP_US of sleep before each. Reports the round trip, the time inside the
 *     extension, and the difference (the time added outside it) for each path, and the
 *     daemon's CPU time per update.
 *
 * Output: `key=value` fields, one line per measurement, for bench/pull to read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP_NS 500000000ull
#define DRAIN_LIMIT_NS 5000000000ull
#define READ_BUFFER (1 << 16)
#define MAX_WINDOW 4096

static const char pull_format[] =
    "{\"type\":\"pull\",\"id\":%llu,\"extension\":\"%s\",\"mode\":\"compact\","
    "\"maxSize\":{\"width\":320,\"height\":120}}\n";
static const char waiting_pull_format[] =
    "{\"type\":\"pull\",\"id\":%llu,\"extension\":\"%s\",\"mode\":\"compact\","
    "\"maxSize\":{\"width\":320,\"height\":120},\"wait\":true}\n";

static void die(const char *what) {
    fprintf(stderr, "pullgen: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_us(long microseconds) {
    struct timespec t = { microseconds / 1000000, (microseconds % 1000000) * 1000 };
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static int connect_unix(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (fd < 0 || strlen(path) >= sizeof address.sun_path) die("socket");
    strcpy(address.sun_path, path);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) die(path);
    return fd;
}

static void write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0 && errno == EINTR) continue;
        if (written < 0 && errno == EAGAIN) {
            struct timespec pause = { 0, 20000 };
            nanosleep(&pause, NULL);
            continue;
        }
        if (written <= 0) die("write");
        bytes += written;
        length -= (size_t)written;
    }
}

/* ---- samples and percentiles ---- */

typedef struct {
    uint64_t *values;
    size_t count, capacity;
} Samples;

static void add_sample(Samples *samples, uint64_t value) {
    if (samples->count == samples->capacity) {
        samples->capacity = samples->capacity ? samples->capacity * 2 : 1 << 16;
        samples->values = realloc(samples->values, samples->capacity * sizeof *samples->values);
        if (!samples->values) die("realloc");
    }
    samples->values[samples->count++] = value;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile in microseconds; call after sorting. */
static double percentile_us(const Samples *samples, double p) {
    if (samples->count == 0) return 0;
    size_t rank = (size_t)(p / 100.0 * (double)samples->count + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > samples->count) rank = samples->count;
    return (double)samples->values[rank - 1] / 1000.0;
}

static void print_percentiles(const char *name, Samples *samples) {
    qsort(samples->values, samples->count, sizeof *samples->values, compare_u64);
    printf(" %s_p50_us=%.1f %s_p99_us=%.1f %s_p999_us=%.1f %s_max_us=%.1f", name, percentile_us(samples, 50),
           name, percentile_us(samples, 99), name, percentile_us(samples, 99.9), name, percentile_us(samples, 100));
}

/* ---- CPU accounting ---- */

/* utime + stime of `pid` in seconds, or -1 when unknown. */
static double process_cpu_seconds(pid_t pid) {
    if (pid <= 0) return -1;
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) return -1;
    text[length] = '\0';
    char *after_name = strrchr(text, ')');  /* the name may contain spaces */
    unsigned long long utime, stime;
    if (!after_name || sscanf(after_name + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                              &utime, &stime) != 2) return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* /proc/`pid`/`name`, or NULL. */
static FILE *open_proc(pid_t pid, const char *name) {
    if (pid <= 0) return NULL;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    return fopen(path, "re");
}

/* The context switches of `pid`'s main thread (the daemon's loop), voluntary and
   involuntary; false when unknown. */
static bool process_switches(pid_t pid, unsigned long long *voluntary, unsigned long long *involuntary) {
    FILE *file = open_proc(pid, "status");
    if (!file) return false;
    char line[256];
    int found = 0;
    while (fgets(line, sizeof line, file)) {
        if (sscanf(line, "voluntary_ctxt_switches: %llu", voluntary) == 1) found |= 1;
        if (sscanf(line, "nonvoluntary_ctxt_switches: %llu", involuntary) == 1) found |= 2;
    }
    fclose(file);
    return found == 3;
}

/* The time `pid`'s main thread ran and waited for a CPU while runnable, in ns
   (/proc/PID/schedstat: exact, where /proc/PID/stat counts ticks); false when unknown. */
static bool process_schedstat(pid_t pid, unsigned long long *run_ns, unsigned long long *wait_ns) {
    FILE *file = open_proc(pid, "schedstat");
    if (!file) return false;
    bool found = fscanf(file, "%llu %llu", run_ns, wait_ns) == 2;
    fclose(file);
    return found;
}

static double own_cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
         + (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/* ---- cached: many connections, a window of pulls on each ---- */

typedef struct {
    int fd;
    char input[READ_BUFFER];
    size_t filled;
    unsigned long long next_id;
    unsigned outstanding;
    uint64_t sent_at[MAX_WINDOW];
} Connection;

typedef struct {
    const char *extension;
    uint64_t measure_from, measure_until;
    unsigned long long answers, not_cached, errors, stray_ids;
    /* Every answer to a pull of ours, the warm-up's and the drain's too: the daemon's work
       while the generator runs, for counts taken over the whole run (bench/pull --instructions). */
    unsigned long long all_answers;
    Samples latency;
} CachedRun;

/* Writes `count` pulls on `connection` in one write, stamped with the time of the write. */
static void send_pulls(Connection *connection, unsigned count, const char *extension) {
    static char batch[MAX_WINDOW * 160];
    size_t length = 0;
    uint64_t sent = now_ns();
    for (unsigned i = 0; i < count; i++) {
        unsigned long long id = connection->next_id++;
        connection->sent_at[id % MAX_WINDOW] = sent;
        length += (size_t)snprintf(batch + length, sizeof batch - length, pull_format, id, extension);
    }
    connection->outstanding += count;
    write_all(connection->fd, batch, length);
}

/* Handles one answer line; returns whether it was the answer to a pull of ours. */
static int take_answer(CachedRun *run, Connection *connection, char *line, uint64_t received) {
    const char *id_field = strstr(line, "\"id\":");
    if (strstr(line, "\"type\":\"error\"")) run->errors++;
    if (!id_field) return 0;  /* a push */
    unsigned long long id = strtoull(id_field + 5, NULL, 10);
    if (id >= connection->next_id || connection->next_id - id > MAX_WINDOW) {
        run->stray_ids++;
        return 0;
    }
    connection->outstanding--;
    run->all_answers++;
    if (received >= run->measure_from && received < run->measure_until) {
        run->answers++;
        if (!strstr(line, "\"result\":\"cached\"")) run->not_cached++;
        add_sample(&run->latency, received - connection->sent_at[id % MAX_WINDOW]);
    }
    return 1;
}

/* Reads what is there; answers each pull answered with a new pull until the end. */
static void serve_readable(CachedRun *run, Connection *connection) {
    ssize_t count = read(connection->fd, connection->input + connection->filled,
                         sizeof connection->input - connection->filled);
    if (count < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (count <= 0) die("host.sock closed by the daemon");
    uint64_t received = now_ns();
    connection->filled += (size_t)count;
    unsigned answered = 0;
    size_t start = 0;
    for (char *newline; (newline = memchr(connection->input + start, '\n', connection->filled - start));) {
        *newline = '\0';
        answered += (unsigned)take_answer(run, connection, connection->input + start, received);
        start = (size_t)(newline - connection->input) + 1;
    }
    memmove(connection->input, connection->input + start, connection->filled - start);
    connection->filled -= start;
    if (connection->filled == sizeof connection->input) die("answer line longer than 64 KiB");
    if (answered > 0 && received < run->measure_until) send_pulls(connection, answered, run->extension);
}

static int run_cached(int argc, char **argv) {
    if (argc < 7) return 2;
    const char *socket_path = argv[2];
    int connections = atoi(argv[4]), window = atoi(argv[5]);
    double seconds = atof(argv[6]);
    pid_t daemon = argc > 7 ? (pid_t)atoi(argv[7]) : 0;
    if (connections < 1 || window < 1 || window > MAX_WINDOW || seconds <= 0) return 2;

    int poller = epoll_create1(EPOLL_CLOEXEC);
    Connection *all = calloc((size_t)connections, sizeof *all);
    if (poller < 0 || !all) die("setup");
    for (int i = 0; i < connections; i++) {
        all[i].fd = connect_unix(socket_path);
        fcntl(all[i].fd, F_SETFL, O_NONBLOCK);
        struct epoll_event interest = { .events = EPOLLIN, .data.ptr = &all[i] };
        if (epoll_ctl(poller, EPOLL_CTL_ADD, all[i].fd, &interest) != 0) die("epoll_ctl");
    }

    CachedRun run = { .extension = argv[3] };
    uint64_t start = now_ns();
    run.measure_from = start + WARMUP_NS;
    run.measure_until = run.measure_from + (uint64_t)(seconds * 1e9);
    for (int i = 0; i < connections; i++) send_pulls(&all[i], (unsigned)window, run.extension);

    double daemon_cpu_from = -1, daemon_cpu_until = -1, own_cpu_from = 0, own_cpu_until = 0;
    int measuring = 0;
    for (;;) {
        uint64_t now = now_ns();
        if (!measuring && now >= run.measure_from) {
            measuring = 1;
            daemon_cpu_from = process_cpu_seconds(daemon);
            own_cpu_from = own_cpu_seconds();
        }
        if (measuring == 1 && now >= run.measure_until) {
            measuring = 2;
            daemon_cpu_until = process_cpu_seconds(daemon);
            own_cpu_until = own_cpu_seconds();
        }
        unsigned long long outstanding = 0;
        for (int i = 0; i < connections; i++) outstanding += all[i].outstanding;
        if (measuring == 2 && outstanding == 0) break;
        if (now > run.measure_until + DRAIN_LIMIT_NS) {
            fprintf(stderr, "pullgen: %llu pulls still unanswered 5 s after the end\n", outstanding);
            return 1;
        }
        struct epoll_event ready[64];
        int count = epoll_wait(poller, ready, 64, 10);
        if (count < 0 && errno != EINTR) die("epoll_wait");
        for (int i = 0; i < count; i++) serve_readable(&run, ready[i].data.ptr);
    }

    double measured = (double)(run.measure_until - run.measure_from) / 1e9;
    printf("mode=cached connections=%d window=%d seconds=%.2f answers=%llu all_answers=%llu rate=%.0f", connections,
           window, measured, run.answers, run.all_answers, (double)run.answers / measured);
    print_percentiles("latency", &run.latency);
    printf(" not_cached=%llu errors=%llu stray=%llu", run.not_cached, run.errors, run.stray_ids);
    if (daemon_cpu_from >= 0 && daemon_cpu_until >= 0)
        printf(" daemon_cpu=%.2f daemon_cpu_us_per_pull=%.2f", (daemon_cpu_until - daemon_cpu_from) / measured,
               run.answers ? (daemon_cpu_until - daemon_cpu_from) * 1e6 / (double)run.answers : 0);
    printf(" generator_cpu=%.2f generator_cpu_us_per_pull=%.2f\n", (own_cpu_until - own_cpu_from) / measured,
           run.answers ? (own_cpu_until - own_cpu_from) * 1e6 / (double)run.answers : 0);
    return run.errors || run.not_cached || run.stray_ids ? 1 : 0;
}

/* ---- update: round trips through the daemon and straight to the extension ---- */

typedef struct {
    int fd;
    const char *peer;  /* for errors */
    char input[READ_BUFFER];
    size_t filled;
} LineReader;

/* The next line (without its line feed) and the time the read that completed it returned. */
static char *read_line(LineReader *reader, uint64_t *received) {
    static char line[READ_BUFFER];
    for (;;) {
        char *newline = memchr(reader->input, '\n', reader->filled);
        if (newline) {
            size_t length = (size_t)(newline - reader->input);
            memcpy(line, reader->input, length);
            line[length] = '\0';
            memmove(reader->input, newline + 1, reader->filled - length - 1);
            reader->filled -= length + 1;
            return line;
        }
        ssize_t count = read(reader->fd, reader->input + reader->filled, sizeof reader->input - reader->filled);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) die(reader->peer);
        *received = now_ns();
        reader->filled += (size_t)count;
    }
}

static uint64_t string_field_u64(const char *line, const char *key) {
    const char *field = strstr(line, key);
    if (!field) {
        fprintf(stderr, "pullgen: no %s in %s\n", key, line);
        exit(1);
    }
    return strtoull(field + strlen(key), NULL, 10);
}

typedef struct {
    const char *name;
    Samples total, inside, outside, to_extension, from_extension;
} RoundTrips;

/* Records one round trip from `sent` to `received` whose answer is `line`. */
static void record(RoundTrips *trips, const char *line, uint64_t sent, uint64_t received) {
    uint64_t extension_received = string_field_u64(line, "\"recvNs\":\"");
    uint64_t extension_sent = string_field_u64(line, "\"sendNs\":\"");
    add_sample(&trips->total, received - sent);
    add_sample(&trips->inside, extension_sent - extension_received);
    add_sample(&trips->outside, (received - sent) - (extension_sent - extension_received));
    add_sample(&trips->to_extension, extension_received - sent);
    add_sample(&trips->from_extension, received - extension_sent);
}

static void print_round_trips(RoundTrips *trips) {
    printf("mode=%s count=%zu", trips->name, trips->total.count);
    print_percentiles("total", &trips->total);
    print_percentiles("inside", &trips->inside);
    print_percentiles("outside", &trips->outside);
    print_percentiles("to_ext", &trips->to_extension);
    print_percentiles("from_ext", &trips->from_extension);
    printf("\n");
}

/* Starts `binary` with one end of a socketpair as fd 3, as the daemon would. */
static int spawn_direct(const char *binary, pid_t *child) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) die("socketpair");
    *child = fork();
    if (*child < 0) die("fork");
    if (*child == 0) {
        if (dup2(pair[1], 3) != 3) _exit(127);
        setenv("EXTENSIOND_FD", "3", 1);
        execl(binary, binary, (char *)NULL);
        _exit(127);
    }
    close(pair[1]);
    return pair[0];
}

static int run_update(int argc, char **argv) {
    if (argc < 7) return 2;
    const char *extension = argv[3];
    long count = atol(argv[5]), gap = atol(argv[6]);
    if (count < 1 || gap < 0) return 2;
    enum { warmup = 20 };

    static LineReader daemon, direct;
    daemon.fd = connect_unix(argv[2]);
    daemon.peer = "host.sock closed by the daemon";
    direct.peer = "socketpair closed by the direct extension";
    pid_t child;
    direct.fd = spawn_direct(argv[4], &child);
    uint64_t received = 0;
    if (!strstr(read_line(&direct, &received), "\"ready\"")) die("the direct extension did not say ready");

    RoundTrips waiting = { .name = "waiting" }, revalidating = { .name = "revalidating" }, straight = { .name = "direct" };
    unsigned long long cached = 0, failed = 0, revalidated = 0;
    pid_t daemon_pid = argc > 7 ? (pid_t)atoi(argv[7]) : 0;
    double daemon_cpu_from = -1;
    unsigned long long voluntary_from = 0, involuntary_from = 0, voluntary_until = 0, involuntary_until = 0;
    bool switches = false, schedstat = false;
    unsigned long long run_from = 0, wait_from = 0, run_until = 0, wait_until = 0;
    char request[512];
    for (long i = 0; i < count + warmup; i++) {
        if (i == warmup) {
            daemon_cpu_from = process_cpu_seconds(daemon_pid);
            switches = process_switches(daemon_pid, &voluntary_from, &involuntary_from);
            schedstat = process_schedstat(daemon_pid, &run_from, &wait_from);
        }
        for (int waits = 1; waits >= 0; waits--) {
            sleep_us(gap);
            int length = snprintf(request, sizeof request, waits ? waiting_pull_format : pull_format, (unsigned long long)i, extension);
            uint64_t sent = now_ns();
            write_all(daemon.fd, request, (size_t)length);
            char *line;
            do line = read_line(&daemon, &received); while (!strstr(line, "\"id\":"));  /* skip pushes */
            if (strstr(line, "\"expired\":true")) {
                /* Stale-while-revalidate: the expired snapshot is the answer, the update's
                   outcome follows as a push (no id): that push ends the round trip. */
                revalidated++;
                do line = read_line(&daemon, &received); while (strstr(line, "\"id\":"));
            }
            if (strstr(line, "\"result\":\"cached\"")) cached++;
            else if (!strstr(line, "\"result\":\"newData\"")) {
                fprintf(stderr, "pullgen: unexpected answer: %s\n", line);
                failed++;
            } else if (i >= warmup) record(waits ? &waiting : &revalidating, line, sent, received);
        }

        sleep_us(gap);
        int length = snprintf(request, sizeof request,
            "{\"type\":\"update\",\"id\":%ld,\"mode\":\"compact\",\"maxSize\":{\"width\":320,\"height\":120},"
            "\"reason\":\"pull\"}\n", i + 1);
        uint64_t sent = now_ns();
        write_all(direct.fd, request, (size_t)length);
        char *line = read_line(&direct, &received);
        if (i >= warmup) record(&straight, line, sent, received);
    }
    double daemon_cpu_until = process_cpu_seconds(daemon_pid);
    switches = switches && process_switches(daemon_pid, &voluntary_until, &involuntary_until);
    schedstat = schedstat && process_schedstat(daemon_pid, &run_until, &wait_until);
    write_all(direct.fd, "{\"type\":\"terminate\"}\n", 21);
    close(direct.fd);
    waitpid(child, NULL, 0);

    print_round_trips(&waiting);
    print_round_trips(&revalidating);
    print_round_trips(&straight);
    double updates = 2.0 * (double)count;
    printf("mode=update_check cached=%llu failed=%llu revalidated=%llu", cached, failed, revalidated);
    if (daemon_cpu_from >= 0 && daemon_cpu_until >= 0)
        printf(" daemon_cpu_us_per_update=%.1f", (daemon_cpu_until - daemon_cpu_from) * 1e6 / updates);
    if (schedstat)
        printf(" daemon_run_us_per_update=%.1f daemon_wait_us_per_update=%.1f",
               (double)(run_until - run_from) / 1e3 / updates, (double)(wait_until - wait_from) / 1e3 / updates);
    if (switches)
        printf(" daemon_voluntary_switches_per_update=%.2f daemon_involuntary_switches_per_update=%.2f",
               (double)(voluntary_until - voluntary_from) / updates, (double)(involuntary_until - involuntary_from) / updates);
    printf("\n");
    return failed ? 1 : 0;
}

static int run_once(int argc, char **argv) {
    if (argc < 4) return 2;
    static LineReader daemon = { .peer = "host.sock closed by the daemon" };
    daemon.fd = connect_unix(argv[2]);
    char request[512];
    int length = snprintf(request, sizeof request, pull_format, 1ull, argv[3]);
    write_all(daemon.fd, request, (size_t)length);
    uint64_t received;
    char *line;
    do line = read_line(&daemon, &received); while (!strstr(line, "\"id\":"));  /* skip pushes */
    printf("%s\n", line);
    return strstr(line, "\"type\":\"snapshot\"") ? 0 : 1;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int status = 2;
    if (argc > 1 && strcmp(argv[1], "cached") == 0) status = run_cached(argc, argv);
    else if (argc > 1 && strcmp(argv[1], "once") == 0) status = run_once(argc, argv);
    else if (argc > 1 && strcmp(argv[1], "update") == 0) status = run_update(argc, argv);
    if (status == 2)
        fprintf(stderr, "usage: pullgen cached SOCKET EXTENSION CONNECTIONS WINDOW SECONDS [DAEMON_PID]\n"
                        "       pullgen once SOCKET EXTENSION\n"
                        "       pullgen update SOCKET EXTENSION EXTENSION_BINARY COUNT GAP_US [DAEMON_PID]\n");
    return status;
}

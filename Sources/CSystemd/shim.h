// libsystemd (Debian's libsystemd0): notify, socket activation, journal.
//
// Loaded with dlopen at its first use, not linked: a daemon outside systemd never maps it
// nor what it pulls in (libcap, libgcrypt, libgpg-error, liblzma, libzstd, liblz4), which
// cost 0.6 MiB of proportional set size (bench/README.md, "The floors: PSS by mapping").
// Each ext_sd_* calls the function of the same name; when the library cannot be loaded it
// fails with -ELIBACC. Calls that libsystemd answers from the environment alone (no
// $LISTEN_PID, no $WATCHDOG_USEC) are answered here without loading it.
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

static inline void *ext_systemd_library(void) {
    static void *library;
    if (!library) library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    return library;
}

/// Declares `function`, libsystemd's `name` or NULL, looked up once.
#define EXT_SYSTEMD_FUNCTION(name)                                                   \
    static __typeof__(name) *function;                                               \
    if (!function && ext_systemd_library()) function = (__typeof__(name) *)dlsym(ext_systemd_library(), #name)

/// The body of a wrapper that returns libsystemd's answer, or -ELIBACC without the library.
#define EXT_SYSTEMD_CALL(name, ...)     \
    EXT_SYSTEMD_FUNCTION(name);         \
    return function ? function(__VA_ARGS__) : -ELIBACC

static inline int ext_sd_notify(int unset_environment, const char *state) {
    EXT_SYSTEMD_CALL(sd_notify, unset_environment, state);
}

static inline int ext_sd_watchdog_enabled(int unset_environment, uint64_t *usec) {
    if (!getenv("WATCHDOG_USEC")) {
        if (unset_environment) unsetenv("WATCHDOG_PID");
        return 0;
    }
    EXT_SYSTEMD_CALL(sd_watchdog_enabled, unset_environment, usec);
}

static inline void ext_unset_listen_environment(int unset_environment) {
    if (!unset_environment) return;
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
}

static inline int ext_sd_listen_fds(int unset_environment) {
    if (!getenv("LISTEN_PID")) {
        ext_unset_listen_environment(unset_environment);
        return 0;
    }
    EXT_SYSTEMD_CALL(sd_listen_fds, unset_environment);
}

static inline int ext_sd_listen_fds_with_names(int unset_environment, char ***names) {
    if (!getenv("LISTEN_PID")) {
        ext_unset_listen_environment(unset_environment);
        *names = NULL;
        return 0;
    }
    EXT_SYSTEMD_CALL(sd_listen_fds_with_names, unset_environment, names);
}

static inline int ext_sd_is_socket_unix(int fd, int type, int listening, const char *path, size_t length) {
    EXT_SYSTEMD_CALL(sd_is_socket_unix, fd, type, listening, path, length);
}

static inline int ext_sd_journal_sendv(const struct iovec *iov, int n) { EXT_SYSTEMD_CALL(sd_journal_sendv, iov, n); }

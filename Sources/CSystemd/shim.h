/* libsystemd as a module: sd-event (the loop), sd-daemon (sd_notify), sd-journal (sending
 * entries) and sd-bus (asking the service manager to set the unit's MemoryHigh=). */
#ifndef EXTENSIOND_CSYSTEMD_SHIM_H
#define EXTENSIOND_CSYSTEMD_SHIM_H
/* Entries carry the daemon's own fields, not the C file and line of this shim. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>
#endif

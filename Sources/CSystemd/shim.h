/* libsystemd as a module: sd-event (the loop) and sd-daemon (sd_notify). */
#ifndef EXTENSIOND_CSYSTEMD_SHIM_H
#define EXTENSIOND_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#endif

#ifndef EXTENSIOND_CSYSTEMD_SHIM_H
#define EXTENSIOND_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#endif

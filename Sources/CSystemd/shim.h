// libsystemd (Debian's libsystemd-dev): notify, socket activation, journal, sd-bus.
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#ifndef LUMEN_CSYSTEMD_SHIM_H
#define LUMEN_CSYSTEMD_SHIM_H
// libsystemd's daemon and journal APIs, as Debian's libsystemd-dev ships them.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif

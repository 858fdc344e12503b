#ifndef LUMEN_CLINUX_SHIM_H
#define LUMEN_CLINUX_SHIM_H
// glibc calls that the Glibc Swift module does not expose.
#include <malloc.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// A descriptor that becomes readable when thread `tid` exits (Linux 6.9 and later), or -1 with errno set.
static inline int lumen_thread_pidfd(pid_t tid) {
    // PIDFD_THREAD is O_EXCL; the wrapper glibc 2.36 offers takes no such flag name.
    return (int)syscall(SYS_pidfd_open, tid, O_EXCL);
}
#endif

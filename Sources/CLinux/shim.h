#ifndef LUMEN_CLINUX_SHIM_H
#define LUMEN_CLINUX_SHIM_H
// glibc calls that the Glibc Swift module does not expose.
#include <malloc.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <errno.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/pidfd.h>
#include <sys/socket.h>

/// A descriptor that becomes readable when thread `tid` exits (Linux 6.9 and later), or -1 with errno set.
static inline int lumen_thread_pidfd(pid_t tid) {
    // PIDFD_THREAD is O_EXCL; the wrapper glibc 2.36 offers takes no such flag name.
    return (int)syscall(SYS_pidfd_open, tid, O_EXCL);
}
/// epoll, with its packed `epoll_event` kept on this side: Swift sees the event mask and the 64-bit key.
static inline int lumen_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static inline int lumen_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t key) {
    struct epoll_event event = {.events = events, .data = {.u64 = key}};
    return epoll_ctl(epfd, op, fd, op == EPOLL_CTL_DEL ? NULL : &event);
}

/// Waits like `epoll_wait`, writing each ready event's mask and key to `masks` and `keys` (`max` each).
static inline int lumen_epoll_wait(int epfd, uint32_t *masks, uint64_t *keys, int max, int timeout) {
    struct epoll_event events[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, events, max, timeout);
    for (int i = 0; i < count; i++) {
        masks[i] = events[i].events;
        keys[i] = events[i].data.u64;
    }
    return count;
}

/// Names the calling thread as `ps -L`, `top -H` and core dumps show it (the kernel keeps 15 bytes).
static inline void lumen_name_current_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

// Declared by <sys/socket.h> only with _GNU_SOURCE, which the Glibc module is built without.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// Accepts a connection on `fd` whose descriptor is non-blocking and closed on exec from the start, with no
/// moment between in which an exec elsewhere could inherit it; -1 with errno set as `accept` sets it.
static inline int lumen_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

/// As ``lumen_accept_nonblocking``, writing the peer's address to `address` (`*length` bytes at most).
static inline int lumen_accept_peer(int fd, struct sockaddr_storage *address, socklen_t *length) {
    return accept4(fd, (struct sockaddr *)address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

static inline int lumen_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

static const uint32_t LUMEN_EPOLLIN = EPOLLIN;
static const uint32_t LUMEN_EPOLLET = EPOLLET;
static const uint32_t LUMEN_EPOLLOUT = EPOLLOUT;
static const uint32_t LUMEN_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t LUMEN_EPOLLHUP = EPOLLHUP;
static const uint32_t LUMEN_EPOLLERR = EPOLLERR;
static const int LUMEN_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
static const int LUMEN_EPOLL_CTL_MOD = EPOLL_CTL_MOD;
static const int LUMEN_EPOLL_CTL_DEL = EPOLL_CTL_DEL;

/// CRC-32C over `count` bytes from `crc` (not inverted here), with the SSE 4.2 instruction; the caller checks
/// `lumen_has_crc32c_instruction()` first.
#if defined(__x86_64__)
#include <stddef.h>
__attribute__((target("sse4.2"))) static inline uint32_t lumen_crc32c_update(uint32_t crc, const uint8_t *bytes,
                                                                              size_t count) {
    uint64_t wide = crc;
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, bytes, 8);
        wide = __builtin_ia32_crc32di(wide, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    while (count > 0) {
        narrow = __builtin_ia32_crc32qi(narrow, *bytes);
        bytes += 1;
        count -= 1;
    }
    return narrow;
}
static inline int lumen_has_crc32c_instruction(void) { return __builtin_cpu_supports("sse4.2"); }
#else
static inline uint32_t lumen_crc32c_update(uint32_t crc, const uint8_t *bytes, unsigned long count) { return crc; }
static inline int lumen_has_crc32c_instruction(void) { return 0; }
#endif


// In glibc since 2.34, declared only with _GNU_SOURCE, which the Glibc module is built without.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// Adds to `actions` the closing of every descriptor from `from` up, in the child.
static inline int lumen_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

#endif

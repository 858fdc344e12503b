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
#include <sys/random.h>

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

#include <netinet/in.h>
#include <string.h>

#ifndef IP_PKTINFO
#define IP_PKTINFO 8
#endif

/// `struct in_pktinfo`, which <netinet/in.h> declares only with _GNU_SOURCE; the kernel's layout.
struct lumen_in_pktinfo {
    int ipi_ifindex;
    struct in_addr ipi_spec_dst;
    struct in_addr ipi_addr;
};

/// Asks the kernel to tell, with each datagram `fd` reads, the address it was sent to (IP_PKTINFO).
static inline int lumen_udp_want_destination(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof one);
}

/// Reads one datagram without blocking, as `recvfrom` does, and the IPv4 address it was sent to: `*destination`
/// the header's (a broadcast address, for a broadcast), `*local` the address of this host the kernel would
/// answer from (the same as `*destination` for a datagram sent to one of its addresses), both in network order
/// and 0 when the socket is not IPv4, and `*interface` the index of the interface it came in on. Returns the
/// byte count, or -1 with errno set.
static inline ssize_t lumen_udp_receive(int fd, void *buffer, size_t size, struct sockaddr_storage *sender,
                                        socklen_t *senderLength, uint32_t *destination, uint32_t *local,
                                        int32_t *interface) {
    struct iovec vector = {.iov_base = buffer, .iov_len = size};
    union {
        char bytes[CMSG_SPACE(sizeof(struct lumen_in_pktinfo))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_name = sender, .msg_namelen = *senderLength, .msg_iov = &vector, .msg_iovlen = 1,
                             .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    ssize_t count = recvmsg(fd, &message, MSG_DONTWAIT);
    *destination = 0;
    *local = 0;
    *interface = 0;
    if (count < 0) return count;
    *senderLength = message.msg_namelen;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == IPPROTO_IP && header->cmsg_type == IP_PKTINFO) {
            struct lumen_in_pktinfo info;
            memcpy(&info, CMSG_DATA(header), sizeof info);
            *destination = info.ipi_addr.s_addr;
            *local = info.ipi_spec_dst.s_addr;
            *interface = info.ipi_ifindex;
        }
    }
    return count;
}

/// Sends one datagram to `to` without blocking, from the IPv4 address `source` of this host (network order;
/// 0 leaves it to the kernel, as `sendto` does). Returns the byte count, or -1 with errno set.
static inline ssize_t lumen_udp_send(int fd, const void *bytes, size_t count, const struct sockaddr_storage *to,
                                     socklen_t toLength, uint32_t source) {
    struct iovec vector = {.iov_base = (void *)bytes, .iov_len = count};
    union {
        char bytes[CMSG_SPACE(sizeof(struct lumen_in_pktinfo))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_name = (void *)to, .msg_namelen = toLength, .msg_iov = &vector, .msg_iovlen = 1};
    if (source != 0) {
        message.msg_control = control.bytes;
        message.msg_controllen = sizeof control.bytes;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = IPPROTO_IP;
        header->cmsg_type = IP_PKTINFO;
        header->cmsg_len = CMSG_LEN(sizeof(struct lumen_in_pktinfo));
        struct lumen_in_pktinfo info = {.ipi_ifindex = 0, .ipi_spec_dst = {.s_addr = source}, .ipi_addr = {0}};
        memcpy(CMSG_DATA(header), &info, sizeof info);
    }
    return sendmsg(fd, &message, MSG_DONTWAIT);
}

#endif

#ifndef LUMEN_CMICROHTTPD_SHIM_H
#define LUMEN_CMICROHTTPD_SHIM_H
// libmicrohttpd, as Debian's libmicrohttpd-dev ships it. Its variadic entry points cannot be called from
// Swift, so each one Lumen needs has a fixed-argument wrapper here.
#include <stdarg.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

/// Starts a daemon driven from outside (no thread of its own) on the listening socket `listen_fd`, which it
/// takes over, with the options in `options` (ended by MHD_OPTION_END).
static inline struct MHD_Daemon *lumen_mhd_start(
    unsigned int flags, MHD_AccessHandlerCallback handler, void *handler_context,
    struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_context, MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/// The epoll descriptor of a daemon started with MHD_USE_EPOLL, or -1.
static inline int lumen_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/// The number of connections the daemon holds now.
static inline unsigned int lumen_mhd_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

/// MHD's option item for a number-valued option.
static inline struct MHD_OptionItem lumen_mhd_option(enum MHD_OPTION option, intptr_t value) {
    struct MHD_OptionItem item = {option, value, NULL};
    return item;
}

/// MHD's option item for the callback told when a request is done, and its context.
static inline struct MHD_OptionItem lumen_mhd_completed_option(MHD_RequestCompletedCallback callback, void *context) {
    struct MHD_OptionItem item = {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)callback, context};
    return item;
}
#endif

/*
 * libmicrohttpd, loaded with dlopen when a server starts (--metrics):
 * linked, it and the gnutls chain it pulls in would cost every run of
 * sonde its dynamic loading (about 3 ms and 3 MB) for a server few runs
 * start. Its header gives the types and constants; the functions the
 * servers call go through the pointers here, under their own names.
 */
#ifndef SONDE_MHD_DL_H
#define SONDE_MHD_DL_H

#include <stddef.h>
#include <microhttpd.h>

#define MHD_DL_FUNCS(X)                                                   \
	X(start_daemon) X(stop_daemon) X(run) X(get_timeout)              \
	X(get_daemon_info) X(get_connection_info)                        \
	X(lookup_connection_value) X(create_response_from_buffer)         \
	X(add_response_header) X(queue_response) X(destroy_response)      \
	X(suspend_connection) X(resume_connection)

struct mhd_dl {
#define MHD_DL_FIELD(f) __typeof__(MHD_##f) *f;
	MHD_DL_FUNCS(MHD_DL_FIELD)
#undef MHD_DL_FIELD
};
extern struct mhd_dl mhd_dl;

/* Loads the library once: 0, or -1 with why (dlerror's words) set. */
int mhd_dl_load(char *why, size_t n);

#define MHD_start_daemon (*mhd_dl.start_daemon)
#define MHD_stop_daemon (*mhd_dl.stop_daemon)
#define MHD_run (*mhd_dl.run)
#define MHD_get_timeout (*mhd_dl.get_timeout)
#define MHD_get_daemon_info (*mhd_dl.get_daemon_info)
#define MHD_get_connection_info (*mhd_dl.get_connection_info)
#define MHD_lookup_connection_value (*mhd_dl.lookup_connection_value)
#define MHD_create_response_from_buffer (*mhd_dl.create_response_from_buffer)
#define MHD_add_response_header (*mhd_dl.add_response_header)
#define MHD_queue_response (*mhd_dl.queue_response)
#define MHD_destroy_response (*mhd_dl.destroy_response)
#define MHD_suspend_connection (*mhd_dl.suspend_connection)
#define MHD_resume_connection (*mhd_dl.resume_connection)

#endif

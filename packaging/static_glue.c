/*
 * What a static executable needs that the dynamic one does not, kept out of
 * src/ because it is for this link only (static.mk):
 *  - mhd_dl (runtime/mhd_dl.h) filled with the linked functions: there is
 *    no libmicrohttpd.so to dlopen.
 *  - passwd lookups (username) through glibc's built-in "files" service
 *    only. Static glibc loads the other NSS services of nsswitch.conf
 *    (systemd, sss, ldap) with dlopen, with the host's libc.so.6 beside the
 *    static one: on Debian 12 `getpwuid_r` of a uid that /etc/passwd lacks
 *    dies of SIGSEGV in libnss_systemd. So a user known only to such a
 *    service prints as "" (as an unknown user does), never a wrong name.
 *  - libdw without debuginfod: its client (debuginfod-client.o) dlopens
 *    libdebuginfod.so.1 and its chain (libcurl, libc.so.6) when a binary's
 *    debug info is not found locally. These four functions are its whole
 *    interface to the rest of libdw (dwfl_end, find-debuginfo,
 *    dwfl_build_id_find_elf); defined here, the archive's member is not
 *    linked, so no network lookup and no dlopen. Debug info is found as
 *    before: in the file, through .gnu_debuglink, /usr/lib/debug.
 */
#include <errno.h>
#include <nss.h>
#include <stddef.h>

#include "runtime/mhd_dl.h"

#undef MHD_start_daemon
#undef MHD_stop_daemon
#undef MHD_run
#undef MHD_get_timeout
#undef MHD_get_daemon_info
#undef MHD_get_connection_info
#undef MHD_lookup_connection_value
#undef MHD_create_response_from_buffer
#undef MHD_add_response_header
#undef MHD_queue_response
#undef MHD_destroy_response
#undef MHD_suspend_connection
#undef MHD_resume_connection

struct mhd_dl mhd_dl = {
#define GLUE_FIELD(f) .f = MHD_##f,
	MHD_DL_FUNCS(GLUE_FIELD)
#undef GLUE_FIELD
};

int mhd_dl_load(char *why, size_t n)
{
	(void)why;
	(void)n;
	return 0;
}

__attribute__((constructor)) static void glue_nss_files_only(void)
{
	__nss_configure_lookup("passwd", "files");
}

struct Dwfl;
struct debuginfod_client;
int __libdwfl_debuginfod_find_executable(struct Dwfl *d, const unsigned char *id, size_t n);
int __libdwfl_debuginfod_find_debuginfo(struct Dwfl *d, const unsigned char *id, size_t n);
void __libdwfl_debuginfod_end(struct debuginfod_client *c);
struct debuginfod_client *dwfl_get_debuginfod_client(struct Dwfl *d);

int __libdwfl_debuginfod_find_executable(struct Dwfl *d, const unsigned char *id, size_t n)
{
	(void)d;
	(void)id;
	(void)n;
	return -ENOSYS;
}

int __libdwfl_debuginfod_find_debuginfo(struct Dwfl *d, const unsigned char *id, size_t n)
{
	(void)d;
	(void)id;
	(void)n;
	return -ENOSYS;
}

void __libdwfl_debuginfod_end(struct debuginfod_client *c)
{
	(void)c;
}

struct debuginfod_client *dwfl_get_debuginfod_client(struct Dwfl *d)
{
	(void)d;
	return NULL;
}

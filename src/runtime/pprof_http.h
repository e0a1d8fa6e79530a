/*
 * GET /debug/pprof/profile?seconds=N on the --metrics server: Go's
 * net/http/pprof convention, which go tool pprof, Parca and Pyroscope
 * scrape. The answer is the profile of the N seconds after the request
 * (the difference of the stack maps), gzipped, as
 * application/octet-stream.
 *
 * The server has no thread: a request begins a window and its connection
 * is suspended (libmicrohttpd's suspend/resume), a timerfd wakes the
 * event loop at the earliest deadline, and the window's profile is made
 * there and the connection resumed. Meanwhile the client's socket is
 * watched for a hang-up, which drops its window at once.
 *   seconds   absent: 30, as Go's handler; a whole number from 1 to
 *             PPROF_HTTP_MAX_SECONDS, else 400 with the reason.
 *   at once   PPROF_HTTP_MAX_PENDING windows (each holds a copy of the
 *             stack maps); more get 503.
 *   at exit   windows still open are ended then (their duration says how
 *             long they ran) and sent, for up to 2 s.
 * Everything runs in the event loop that calls metrics_serve().
 */
#ifndef SONDE_PPROF_HTTP_H
#define SONDE_PPROF_HTTP_H

#ifdef SONDE_HAVE_MHD

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#define PPROF_HTTP_PATH "/debug/pprof/profile"
#define PPROF_HTTP_MAX_SECONDS 3600
#define PPROF_HTTP_MAX_PENDING 8

struct metrics_profiler;
struct pprof_http;

/* Set up on the server's epoll fd epfd (its events carry data.ptr: NULL
 * for the daemon's own fd, anything else is pprof_http_event's). */
int pprof_http_new(struct pprof_http **h, const struct metrics_profiler *p,
		   int epfd);
void pprof_http_free(struct pprof_http *h);

/* The access handler for PPROF_HTTP_PATH (req_cls as libmicrohttpd's). */
enum MHD_Result pprof_http_answer(struct pprof_http *h,
				  struct MHD_Connection *conn,
				  void **req_cls);
/* libmicrohttpd's notice that a request of ours is over. */
void pprof_http_completed(struct pprof_http *h, void *req_cls);
/* An event of ours on epfd. */
void pprof_http_event(struct pprof_http *h, void *ptr, uint32_t events);
/* Ends every open window now (the run is stopping). */
void pprof_http_end_all(struct pprof_http *h);
/* Whether requests are still being answered. */
bool pprof_http_busy(const struct pprof_http *h);

#endif
#endif

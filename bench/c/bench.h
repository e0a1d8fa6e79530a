/* Shared between the BPF baselines and loader.c: the ring buffer records a
 * baseline sends to user space, and the tracepoint context it reads. */
#ifndef BENCH_H
#define BENCH_H

enum { EV_EXIT = 1, EV_PRINT_PID_COMM = 2, EV_PRINT_STR = 3 };

struct ev_hdr { unsigned int type; unsigned int pad; };

/* printf("%d %s %llu\n", pid, comm, nsecs) */
struct ev_print_pid_comm {
	struct ev_hdr h;
	unsigned int pid;
	unsigned int pad;
	unsigned long long ns;
	char comm[16];
};

/* printf("%s\n", msg) */
struct ev_print_str { struct ev_hdr h; char msg[16]; };

#endif

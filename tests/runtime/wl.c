// wl: a small deterministic workload for the runtime tests. Linked
// statically so that no dynamic loader syscalls blur the counts. It runs a
// sequence of steps given on the command line, each one verb and its
// arguments, e.g.  wl getpid 3 writes 2 4097 sleep 10
//
//   getpid N           N getpid() syscalls
//   getppid N          N getppid() syscalls
//   int80 N            N 32-bit getpid() calls through int $0x80 (x86-64)
//   writes N SIZE      N writes of SIZE bytes to /dev/null
//   reads N SIZE       N reads of SIZE bytes from /dev/zero
//   open PATH N        N openat(PATH, O_RDONLY) (failures are fine)
//   stat PATH N        N stat(PATH) and statfs(PATH) by their own syscalls
//                      (glibc's stat() is newfstatat; arm64 has no stat
//                      syscall, its N are newfstatat)
//   lseek OFF N        N lseek(/dev/null fd, OFF, SEEK_SET) (OFF may be < 0)
//   sleep MS           nanosleep for MS milliseconds
//   spin MS            busy loop for MS milliseconds
//   faults N           touches N fresh anonymous pages (N page faults)
//   poke N             writes the global wl_target N times (watchpoints
//                      find it with nm: the binary is static, not PIE)
//   fork N             N children that exit at once (each waited for)
//   kill SIG           sends SIG to itself (SIG must be ignored, see ignore)
//   killparent SIG     sends SIG to its parent (the tracer, with -c)
//   ignore SIG         ignores SIG
//   exec PATH ARGS...  execv(PATH, ARGS) (the rest of the command line)
//   exit CODE          _exit(CODE)
//   cpu N              moves to CPU N modulo the CPUs it may run on, so
//                      that per-CPU values are spread and merged
//   waitfile PATH      waits (polling every 10 ms) until PATH exists, so a
//                      background workload starts only once the tracer is
//                      attached (the test's CMD creates PATH)
//   touch PATH         creates PATH
//   waitexit PID       waits until process PID has exited (pidfd), so a
//                      -c CMD lives exactly as long as a background workload
//   udp PORT N         N UDP datagrams to 127.0.0.1 port PORT, where
//                      nothing listens: the kernel drops each (kfree_skb,
//                      reason NO_SOCKET), in the sender's softirq or
//                      ksoftirqd; tests that run at once use distinct
//                      ports, since the drop is told by its port
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];
// In .data (initialised): a watchpoint on a .bss variable also counted 8
// writes made at exec, before main (the kernel zeroing around .bss).
volatile long wl_target = 1;

static long num(const char *s)
{
	return strtol(s, NULL, 0);
}

static void need(int i, int n, int argc, const char *verb)
{
	if (i + n >= argc) {
		fprintf(stderr, "wl: %s needs %d argument(s)\n", verb, n);
		_exit(2);
	}
}

static volatile sig_atomic_t spun; /* spin's timer went off */

static void spin_end(int sig)
{
	(void)sig;
	spun = 1;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *v = argv[i];
		if (!strcmp(v, "getpid")) {
			need(i, 1, argc, v);
			for (long n = num(argv[++i]); n > 0; n--)
				syscall(SYS_getpid);
		} else if (!strcmp(v, "cpu")) {
			need(i, 1, argc, v);
			long want = num(argv[++i]);
			static cpu_set_t allowed; /* as at the start */
			static int have_allowed;
			cpu_set_t one;
			if (!have_allowed &&
			    sched_getaffinity(0, sizeof(allowed), &allowed))
				continue;
			have_allowed = 1;
			int n = CPU_COUNT(&allowed), k = 0;
			CPU_ZERO(&one);
			for (int c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &allowed) && k++ == want % n)
					CPU_SET(c, &one);
			sched_setaffinity(0, sizeof(one), &one);
		} else if (!strcmp(v, "getppid")) {
			need(i, 1, argc, v);
			for (long n = num(argv[++i]); n > 0; n--)
				syscall(SYS_getppid);
		} else if (!strcmp(v, "int80")) {
			need(i, 1, argc, v);
			for (long n = num(argv[++i]); n > 0; n--) {
#if defined(__x86_64__)
				/* the 32-bit getpid (20; 20 is writev in
				 * the 64-bit table) */
				long r;
				__asm__ volatile("int $0x80" : "=a"(r)
						 : "a"(20L) : "memory");
#else
				fprintf(stderr, "wl: int80 is x86-64's\n");
				return 1;
#endif
			}
		} else if (!strcmp(v, "writes") || !strcmp(v, "reads")) {
			need(i, 2, argc, v);
			long n = num(argv[i + 1]), size = num(argv[i + 2]);
			i += 2;
			int w = v[0] == 'w';
			int fd = open(w ? "/dev/null" : "/dev/zero", w ? O_WRONLY : O_RDONLY);
			if (size > (long)sizeof buf)
				size = sizeof buf;
			for (; n > 0; n--) {
				if (w)
					(void)!write(fd, buf, size);
				else
					(void)!read(fd, buf, size);
			}
			close(fd);
		} else if (!strcmp(v, "open")) {
			need(i, 2, argc, v);
			const char *path = argv[i + 1];
			long n = num(argv[i + 2]);
			i += 2;
			for (; n > 0; n--) {
				int fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
				if (fd >= 0)
					close(fd);
			}
		} else if (!strcmp(v, "stat")) {
			need(i, 2, argc, v);
			const char *path = argv[i + 1];
			long n = num(argv[i + 2]);
			i += 2;
			char buf[512]; /* struct stat and struct statfs fit */
			for (; n > 0; n--) {
#ifdef SYS_stat
				syscall(SYS_stat, path, buf);
#else
				/* (arm64 has no stat syscall: newfstatat) */
				syscall(SYS_newfstatat, AT_FDCWD, path, buf, 0);
#endif
				syscall(SYS_statfs, path, buf);
			}
		} else if (!strcmp(v, "lseek")) {
			need(i, 2, argc, v);
			long off = num(argv[i + 1]), n = num(argv[i + 2]);
			i += 2;
			int fd = open("/dev/null", O_RDONLY);
			for (; n > 0; n--)
				syscall(SYS_lseek, fd, off, SEEK_SET);
			close(fd);
		} else if (!strcmp(v, "sleep")) {
			need(i, 1, argc, v);
			long ms = num(argv[++i]);
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		} else if (!strcmp(v, "spin")) {
			/* until a timer's signal, with no system call while it
			 * spins: where the clock has no vDSO (an emulated guest
			 * whose TSC was found unstable) each clock_gettime is
			 * one, and pid_option_all_probes counted 5414 */
			need(i, 1, argc, v);
			long ms = num(argv[++i]);
			struct sigaction sa = { .sa_handler = spin_end };
			struct itimerval it = { .it_value = { ms / 1000,
							      ms % 1000 * 1000 } };
			spun = ms <= 0;
			sigaction(SIGALRM, &sa, NULL);
			setitimer(ITIMER_REAL, &it, NULL);
			volatile unsigned long x = 0;
			while (!spun)
				x++;
		} else if (!strcmp(v, "faults")) {
			need(i, 1, argc, v);
			long n = num(argv[++i]), pg = sysconf(_SC_PAGESIZE);
			char *m = mmap(NULL, n * pg, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED)
				_exit(3);
			/* one fault per page: no huge pages */
			madvise(m, n * pg, MADV_NOHUGEPAGE);
			for (long k = 0; k < n; k++)
				m[k * pg] = 1;
			munmap(m, n * pg);
		} else if (!strcmp(v, "poke")) {
			need(i, 1, argc, v);
			for (long n = num(argv[++i]); n > 0; n--)
				wl_target = n;
		} else if (!strcmp(v, "fork")) {
			need(i, 1, argc, v);
			for (long n = num(argv[++i]); n > 0; n--) {
				pid_t p = fork();
				if (p == 0)
					_exit(0);
				if (p > 0)
					waitpid(p, NULL, 0);
			}
		} else if (!strcmp(v, "ignore")) {
			need(i, 1, argc, v);
			signal(num(argv[++i]), SIG_IGN);
		} else if (!strcmp(v, "kill")) {
			need(i, 1, argc, v);
			kill(getpid(), num(argv[++i]));
		} else if (!strcmp(v, "killparent")) {
			/* the tracer that started us with -c */
			need(i, 1, argc, v);
			kill(getppid(), num(argv[++i]));
		} else if (!strcmp(v, "exec")) {
			need(i, 1, argc, v);
			execv(argv[i + 1], argv + i + 1);
			perror("wl: exec");
			_exit(127);
		} else if (!strcmp(v, "waitfile")) {
			need(i, 1, argc, v);
			const char *path = argv[++i];
			struct timespec ts = { 0, 10000000L };
			while (access(path, F_OK))
				nanosleep(&ts, NULL);
		} else if (!strcmp(v, "touch")) {
			need(i, 1, argc, v);
			int fd = open(argv[++i], O_WRONLY | O_CREAT, 0644);
			if (fd < 0)
				_exit(3);
			close(fd);
		} else if (!strcmp(v, "waitexit")) {
			need(i, 1, argc, v);
			int fd = syscall(SYS_pidfd_open, (pid_t)num(argv[++i]), 0);
			if (fd < 0)
				continue; /* already gone */
			struct pollfd pfd = { fd, POLLIN, 0 };
			while (poll(&pfd, 1, -1) < 0)
				;
			close(fd);
		} else if (!strcmp(v, "udp")) {
			need(i, 2, argc, v);
			int fd = socket(AF_INET, SOCK_DGRAM, 0);
			struct sockaddr_in to = {
				.sin_family = AF_INET,
				.sin_port = htons((uint16_t)num(argv[++i]))
			};
			to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			for (long n = num(argv[++i]); fd >= 0 && n > 0; n--)
				sendto(fd, "x", 1, 0, (struct sockaddr *)&to,
				       sizeof(to));
			if (fd >= 0)
				close(fd);
		} else if (!strcmp(v, "exit")) {
			need(i, 1, argc, v);
			_exit(num(argv[++i]));
		} else {
			fprintf(stderr, "wl: unknown step %s\n", v);
			return 2;
		}
	}
	return 0;
}

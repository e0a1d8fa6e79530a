// tcpwl: TCP workloads for the network tool tests (tests/tools/tcp*.test).
//
//   tcpwl pair PORT SEND RECV   one process, one loopback connection to
//                               127.0.0.1:PORT: the client sends SEND bytes,
//                               the server reads them and sends RECV bytes
//                               back, the client reads them and closes
//                               first, then the server (so both sides go
//                               through their usual states)
//   tcpwl syn ADDR PORT MS      a non-blocking connect to ADDR:PORT, given
//                               MS milliseconds, then closed (a SYN that
//                               nobody answers is retransmitted after 1 s)
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char buf[1 << 16];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void xfer(int fd, long n, int out)
{
	while (n > 0) {
		long k = n < (long)sizeof buf ? n : (long)sizeof buf;
		k = out ? write(fd, buf, k) : read(fd, buf, k);
		if (k <= 0)
			die(out ? "write" : "read");
		n -= k;
	}
}

static struct sockaddr_in addr(const char *ip, int port)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1)
		die("address");
	return a;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "pair")) {
		struct sockaddr_in a = addr("127.0.0.1", atoi(argv[2]));
		int one = 1, l = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(l, (void *)&a, sizeof a) || listen(l, 4))
			die("listen");
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (void *)&a, sizeof a))
			die("connect");
		int s = accept(l, NULL, NULL);
		if (s < 0)
			die("accept");
		xfer(c, atol(argv[3]), 1);
		xfer(s, atol(argv[3]), 0);
		xfer(s, atol(argv[4]), 1);
		xfer(c, atol(argv[4]), 0);
		close(c);
		// the server sees the client's FIN before it closes
		if (read(s, buf, 1) != 0)
			die("eof");
		close(s);
		close(l);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "syn")) {
		struct sockaddr_in a = addr(argv[2], atoi(argv[3]));
		int c = socket(AF_INET, SOCK_STREAM, 0);
		fcntl(c, F_SETFL, O_NONBLOCK);
		connect(c, (void *)&a, sizeof a);
		struct pollfd p = { c, POLLOUT, 0 };
		poll(&p, 1, atoi(argv[4]));
		close(c);
		return 0;
	}
	fprintf(stderr, "usage: tcpwl pair PORT SEND RECV | syn ADDR PORT MS\n");
	return 2;
}

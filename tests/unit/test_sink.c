/* runtime/sink: a failed write keeps its errno, is said once, and stops
 * all later writes. */
#include "check.h"

#include <errno.h>
#include <stdlib.h>

#include "runtime/sink.h"

TEST(full_device_keeps_enospc)
{
	FILE *full = fopen("/dev/full", "w");
	if (!full)
		SKIP("no /dev/full");
	struct sink s;
	CHECK(sink_open(&s, full, "/dev/full", _IOFBF, 64) == 0);
	CHECK(s.err == 0);
	/* more than the buffer: stdio hands it over at once */
	for (int i = 0; i < 100; i++)
		fputs("a line of output\n", s.f);
	CHECK(sink_flush(&s) == -ENOSPC);
	char *msg;
	size_t n;
	FILE *err = open_memstream(&msg, &n);
	CHECK(sink_report(&s, err) == -ENOSPC);
	CHECK(sink_report(&s, err) == -ENOSPC);
	fclose(err);
	CHECK_STR(msg, "sonde: cannot write to /dev/full: No space left on "
		       "device\n");
	free(msg);
	CHECK(sink_close(&s) == -ENOSPC);
	fclose(full);
}

TEST(memory_stream_passes_through)
{
	char *text;
	size_t n;
	FILE *m = open_memstream(&text, &n);
	fputs("before ", m); /* still buffered: comes first */
	struct sink s;
	CHECK(sink_open(&s, m, "mem", _IOLBF, 64) == 0);
	fprintf(s.f, "x=%d\n", 42);
	CHECK(sink_close(&s) == 0);
	fclose(m);
	CHECK_STR(text, "before x=42\n");
	free(text);
}

int main(void)
{
	RUN(full_device_keeps_enospc);
	RUN(memory_stream_passes_through);
	return check_done();
}

/* xlated PID...
 *
 * Prints the BPF programs that the processes PID hold, one line each:
 *   prog_id xlated_insns jited_bytes type name
 * then "total N_PROGS XLATED_INSNS" and "runs RUN_CNT RUN_TIME_NS", the
 * kernel's run statistics summed over them (counted only while
 * kernel.bpf_stats_enabled is 1). Programs are found through the prog_id
 * line of /proc/PID/fdinfo/N (program fds and link fds both show it), so a
 * program a tracer holds only through a link still counts; each one counts
 * once. The sizes come from BPF_OBJ_GET_INFO_BY_FD: xlated_prog_len / 8 is
 * the number of instructions the kernel holds after verification. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

static unsigned int ids[4096];
static int nids;

static void add(unsigned int id)
{
	for (int i = 0; i < nids; i++)
		if (ids[i] == id)
			return;
	if (nids < 4096)
		ids[nids++] = id;
}

static void scan(const char *pid)
{
	char dir[64], path[320], line[256];
	snprintf(dir, sizeof(dir), "/proc/%s/fdinfo", pid);
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		unsigned int id;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "prog_id: %u", &id) == 1)
				add(id);
		fclose(f);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: xlated PID...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		scan(argv[i]);
	unsigned long long total = 0, runs = 0, run_ns = 0;
	int n = 0;
	for (int i = 0; i < nids; i++) {
		int fd = bpf_prog_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
			printf("%u %u %u %u %s\n", info.id, info.xlated_prog_len / 8,
			       info.jited_prog_len, info.type, info.name);
			total += info.xlated_prog_len / 8;
			runs += info.run_cnt;
			run_ns += info.run_time_ns;
			n++;
		}
		close(fd);
	}
	printf("total %d %llu\n", n, total);
	printf("runs %llu %llu\n", runs, run_ns);
	return n ? 0 : 1;
}

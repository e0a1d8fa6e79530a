/*
 * Runs code straight from a file, as an APK's library runs from the
 * archive or a JIT cache from its file: maps all of FILE readable and
 * executable and calls the function at byte OFFSET of it as int f(int)
 * with 7, then prints what it returned. For uprobes on files that are not
 * ELF programs (tests uprobe_raw_file, uprobe_zip_archive).
 *   mmapexec FILE OFFSET
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mmapexec FILE OFFSET\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	char *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC,
			  MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	int (*fn)(int) = (int (*)(int))(base + strtoul(argv[2], NULL, 0));
	printf("%d\n", fn(7));
	return 0;
}
